/**
 * Private work, the attack on the other records (issue 43): member A makes 100 presets and 100
 * LLM chats through the real routes (real files, real SQLite) and has chat-bot chats admitted;
 * member B tries every id on every route of each family and must get exactly the answer for an id
 * that never existed. Shared presets are the one exception: everyone sees them, only their owner
 * and admins change them, and only the owner of Studio and admins share.
 */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SettingsStore } from '../../../server/db/settings.store.js';
import { ALLOWED_CHATS_KEY } from '../../../server/chatbot/chatbot.store.js';
import type { PresetListEntry } from '../../../server/contracts/presets.contract.js';
import type { ChatbotChatsBody } from '../../../server/contracts/chatbot.contract.js';
import { openPersonDoor, person, type PersonDoor } from '../../helpers/as-person.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

const A = person('user-a');
const B = person('user-b');
let t: TestStudio;
let door: PersonDoor;
const presetIds: string[] = [];
const chatIds: string[] = [];
const botChats = [7001, 7002, -7003];

const json = (body: unknown, method = 'POST'): RequestInit => ({ method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

beforeAll(async () => {
  t = await startTestStudio();
  door = await openPersonDoor(t.studio, [A, B]);
  for (let i = 0; i < 100; i++) {
    const id = `a-preset-${i}`;
    const made = await door.as(A, '/api/admin/presets', json({ id, name: `A's preset ${i}`, workflow: { workflow_id: 'image-filter', params: { strength: i } } }));
    expect(made.status).toBe(200);
    presetIds.push(id);
    const chat = await door.as(A, '/api/admin/llm/chats', json({ title: `A's chat ${i}`, messages: [{ role: 'user', content: 'a secret of A' }] }));
    expect(chat.status).toBe(201);
    chatIds.push(((await chat.json()) as { id: string }).id);
  }
  new SettingsStore(t.studio.db).set(ALLOWED_CHATS_KEY, JSON.stringify(botChats.map((id) => ({ id, title: `A's chat ${id}`, admitted_at: null, owner_id: A.userId }))));
});

afterAll(async () => {
  await door?.close();
  await t?.stop();
});

async function answer(res: Response, id: string): Promise<string> {
  return `${res.status} ${(await res.text()).split(id).join('<id>')}`;
}

/** B's answer for each of A's ids equals B's answer for an id nobody has. */
async function expectAsMissing(ids: readonly string[], fresh: () => string, routes: Array<{ name: string; path: (id: string) => string; init?: () => RequestInit }>): Promise<void> {
  for (const route of routes) {
    for (const id of ids) {
      const missing = fresh();
      const theirs = await answer(await door.as(B, route.path(id), route.init?.()), id);
      const none = await answer(await door.as(B, route.path(missing), route.init?.()), missing);
      expect(theirs, `${route.name} ${id}`).toBe(none);
    }
  }
}

describe("member B and member A's presets", () => {
  it('answers get, rename, delete, placeholders, run and export as for a missing preset', async () => {
    await expectAsMissing(presetIds, () => `x-preset-${crypto.randomBytes(4).toString('hex')}`, [
      { name: 'get', path: (id) => `/api/admin/presets/${id}` },
      { name: 'rename', path: (id) => `/api/admin/presets/${id}/rename`, init: () => json({ name: 'mine now' }, 'PUT') },
      { name: 'delete', path: (id) => `/api/admin/presets/${id}`, init: () => ({ method: 'DELETE' }) },
      { name: 'placeholders', path: (id) => `/api/admin/presets/${id}/placeholders` },
      { name: 'run', path: (id) => `/api/admin/presets/${id}/run`, init: () => json({ seed: '1' }) },
      { name: 'export', path: (id) => `/api/admin/presets/${id}/export` },
    ]);
  });

  it('lists none of them for B; A and the owner see them all, with owner_id', async () => {
    const list = async (who: typeof A | null) => ((await (await door.as(who, '/api/admin/presets')).json()) as PresetListEntry[]);
    expect((await list(B)).filter((p) => presetIds.includes(p.id))).toEqual([]);
    expect((await list(A)).filter((p) => presetIds.includes(p.id))).toHaveLength(100);
    expect((await list(null)).filter((p) => p.owner_id === A.userId)).toHaveLength(100);
  });

  it('does not let B replace one by creating a preset with its id', async () => {
    const res = await door.as(B, '/api/admin/presets', json({ id: presetIds[0], workflow: { workflow_id: 'image-filter' } }));
    expect(res.status).toBe(409);
    expect(await (await door.as(A, `/api/admin/presets/${presetIds[0]}`)).json()).toMatchObject({ name: "A's preset 0", owner_id: A.userId });
  });
});

describe('shared presets', () => {
  it('are shared by the owner only; B sees and reads one but may not change it', async () => {
    expect((await door.as(B, '/api/admin/presets', json({ id: 'b-shares', shared: true, workflow: { workflow_id: 'image-filter' } }))).status).toBe(403);
    expect((await door.as(null, '/api/admin/presets', json({ id: 'house-style', shared: true, workflow: { workflow_id: 'image-filter' } }))).status).toBe(200);
    const seen = (await (await door.as(B, '/api/admin/presets')).json()) as PresetListEntry[];
    expect(seen.find((p) => p.id === 'house-style')).toMatchObject({ shared: true });
    expect((await door.as(B, '/api/admin/presets/house-style')).status).toBe(200);
    expect((await door.as(B, '/api/admin/presets/house-style', { method: 'DELETE' })).status).toBe(403);
    expect((await door.as(B, '/api/admin/presets/house-style/rename', json({ name: 'B was here' }, 'PUT'))).status).toBe(403);
    // Unshared again, it is gone for B.
    expect((await door.as(null, '/api/admin/presets/house-style/rename', json({ shared: false }, 'PUT'))).status).toBe(200);
    expect((await door.as(B, '/api/admin/presets/house-style')).status).toBe(404);
  });
});

describe("member B and member A's LLM chats", () => {
  it('answers get, change, append, delete and export as for a missing chat', async () => {
    await expectAsMissing(chatIds, () => crypto.randomBytes(8).toString('hex'), [
      { name: 'get', path: (id) => `/api/admin/llm/chats/${id}` },
      { name: 'patch', path: (id) => `/api/admin/llm/chats/${id}`, init: () => json({ title: 'mine now' }, 'PATCH') },
      { name: 'append', path: (id) => `/api/admin/llm/chats/${id}/messages`, init: () => json({ messages: [{ role: 'user', content: 'hi' }] }) },
      { name: 'delete', path: (id) => `/api/admin/llm/chats/${id}`, init: () => ({ method: 'DELETE' }) },
      { name: 'export', path: (id) => `/api/admin/llm/chats/${id}/export` },
    ]);
  });

  it('lists only their own; A still has all 100, untouched', async () => {
    const list = async (who: typeof A) => ((await (await door.as(who, '/api/admin/llm/chats')).json()) as { chats: Array<{ id: string; title: string; message_count: number }> }).chats;
    expect((await list(B)).filter((c) => chatIds.includes(c.id))).toEqual([]);
    const mine = (await list(A)).filter((c) => chatIds.includes(c.id));
    expect(mine).toHaveLength(100);
    expect(mine.every((c) => c.title.startsWith("A's chat") && c.message_count === 1)).toBe(true);
  });
});

describe("member B and the chat-bot chats A's key admitted", () => {
  it('lists none of them for B, and removing one answers as for a chat never admitted', async () => {
    const body = (await (await door.as(B, '/api/admin/chatbot/chats')).json()) as ChatbotChatsBody;
    expect(body.admitted).toEqual([]);
    for (const id of botChats) {
      const missing = 9_000_000 + Math.floor(Math.random() * 1000);
      expect(await answer(await door.as(B, `/api/admin/chatbot/chats/${id}`, { method: 'DELETE' }), String(id))).toBe(await answer(await door.as(B, `/api/admin/chatbot/chats/${missing}`, { method: 'DELETE' }), String(missing)));
    }
    const owners = (await (await door.as(A, '/api/admin/chatbot/chats')).json()) as ChatbotChatsBody;
    expect(owners.admitted.map((c) => c.id)).toEqual(botChats);
  });
});
