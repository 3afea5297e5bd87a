import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ALLOWED_CHATS_KEY, ChatbotStore } from '../../../server/chatbot/chatbot.store.js';
import { openDatabase, type Db } from '../../../server/db/database.js';
import { SettingsStore } from '../../../server/db/settings.store.js';

let dir: string;
let db: Db;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-chats-'));
  db = openDatabase(path.join(dir, 'studio.db'));
});
afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the admitted chats', () => {
  it('reads rows written before titles were kept (bare ids), and keeps them through remove and clear', () => {
    const settings = new SettingsStore(db);
    settings.set(ALLOWED_CHATS_KEY, JSON.stringify([11, 'junk', 22]));
    const store = new ChatbotStore(settings, []);
    expect(store.admitted()).toEqual([
      { id: 11, title: null, admitted_at: null },
      { id: 22, title: null, admitted_at: null },
    ]);
    expect(store.isAllowed(22)).toBe(true);
    store.allow(33, 'Family', new Date('2026-01-02T03:04:05Z'));
    expect(store.remove(11)).toBe(true);
    expect(store.remove(11)).toBe(false);
    expect(store.admitted().map((c) => [c.id, c.title, c.admitted_at])).toEqual([
      [22, null, null],
      [33, 'Family', '2026-01-02T03:04:05.000Z'],
    ]);
    expect(store.clearAdmitted()).toBe(2);
    expect(store.isAllowed(33)).toBe(false);
    expect(store.clearAdmitted()).toBe(0);
  });

  it('binds a chat to the person whose key admitted it; a new key rebinds it; a new API_KEY leaves bound chats', () => {
    const store = new ChatbotStore(new SettingsStore(db), []);
    store.allow(1, 'Owner chat');
    store.allow(2, 'Ann', new Date(), { userId: 'u_ann', keyId: 'k_1' });
    expect(store.binding(1)).toBeNull();
    expect(store.binding(2)).toEqual({ userId: 'u_ann', keyId: 'k_1' });
    store.allow(2, 'Ann', new Date(), { userId: 'u_ann', keyId: 'k_2' });
    expect(store.admitted().filter((c) => c.id === 2)).toEqual([expect.objectContaining({ owner_id: 'u_ann', key_id: 'k_2' })]);
    expect(store.clearAdmitted()).toBe(1);
    expect(store.admitted().map((c) => c.id)).toEqual([2]);
    expect(store.binding(3)).toBeNull();
    // CHATBOT_ALLOWED_CHATS decides alone: its chats act as the owner.
    expect(new ChatbotStore(new SettingsStore(db), [2]).binding(2)).toBeNull();
  });
});
