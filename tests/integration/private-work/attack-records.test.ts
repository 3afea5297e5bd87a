/**
 * The attack of issue 43 on presets, LLM chats, uploads and chat-bot chats, through Studio's real
 * front door: A and B are members the owner added, signed in by name and password (cookies) and
 * with personal keys. A makes 100 presets, 100 LLM chats and 100 uploads through the real routes;
 * B, by cookie and by key in turn, tries each id on every route of its family and must get exactly
 * the answer for an id that never existed. Nothing of A's changes, and no listing of B's shows it.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALLOWED_CHATS_KEY } from '../../../server/chatbot/chatbot.store.js';
import type { AssetListing } from '../../../server/contracts/assets.contract.js';
import type { PresetListEntry } from '../../../server/contracts/presets.contract.js';
import { SettingsStore } from '../../../server/db/settings.store.js';
import { answer, expectAsMissing, signedIn, type SignedIn } from '../../helpers/attack.js';
import { as, json } from '../../helpers/people.js';
import { executeRaw, SAMPLE_PNG } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let t: TestStudio;
let a: SignedIn;
let b: SignedIn;
const presetIds: string[] = [];
const chatIds: string[] = [];
const inputs: string[] = [];
const botChats = [7001, 7002, -7003];

beforeAll(async () => {
  t = await startTestStudio({ startEngine: true });
  await t.studio.engineReady();
  a = await signedIn(t, 'Ann', 'member');
  b = await signedIn(t, 'Ben', 'member');
  for (let i = 0; i < 100; i++) {
    const auth = i % 2 === 0 ? a.cookie : { key: a.key.key };
    const id = `a-preset-${i}`;
    expect((await as(t, auth, '/api/admin/presets', json('POST', { id, name: `A's preset ${i}`, workflow: { workflow_id: 'image-filter', params: { strength: i } } }))).status).toBe(200);
    presetIds.push(id);
    const chat = await as(t, auth, '/api/admin/llm/chats', json('POST', { title: `A's chat ${i}`, messages: [{ role: 'user', content: 'a secret of A' }] }));
    expect(chat.status).toBe(201);
    chatIds.push(((await chat.json()) as { id: string }).id);
  }
  for (let i = 0; i < 10; i++) {
    const form = new FormData();
    for (let j = 0; j < 10; j++) form.append('files', new Blob([fs.readFileSync(SAMPLE_PNG)], { type: 'image/png' }), `a-input-${i}-${j}.png`);
    const res = await as(t, i % 2 === 0 ? a.cookie : { key: a.key.key }, '/api/admin/assets/upload-inputs', { method: 'POST', body: form });
    inputs.push(...((await res.json()) as { uploaded: string[] }).uploaded);
  }
  expect(inputs).toHaveLength(100);
  // Chats A's key admitted to the chat bot (as `/key` stores them).
  new SettingsStore(t.studio.db).set(ALLOWED_CHATS_KEY, JSON.stringify(botChats.map((id) => ({ id, title: `A's chat ${id}`, admitted_at: null, owner_id: a.id, key_id: a.key.id }))));
}, 120_000);

afterAll(async () => t?.stop());

describe("member B and member A's records, signed in for real", () => {
  it('answers get, rename, delete, placeholders, run and export of A\'s 100 presets as for a missing preset', async () => {
    await expectAsMissing(t, b, presetIds, () => `x-preset-${crypto.randomBytes(4).toString('hex')}`, [
      { name: 'get', path: (id) => `/api/admin/presets/${id}` },
      { name: 'rename', path: (id) => `/api/admin/presets/${id}/rename`, init: () => json('PUT', { name: 'mine now' }) },
      { name: 'delete', path: (id) => `/api/admin/presets/${id}`, init: () => ({ method: 'DELETE' }) },
      { name: 'placeholders', path: (id) => `/api/admin/presets/${id}/placeholders` },
      { name: 'run', path: (id) => `/api/admin/presets/${id}/run`, init: () => json('POST', { seed: '1' }) },
      { name: 'export', path: (id) => `/api/admin/presets/${id}/export` },
    ]);
  }, 120_000);

  it('answers get, change, append, delete and export of A\'s 100 LLM chats as for a missing chat', async () => {
    await expectAsMissing(t, b, chatIds, () => crypto.randomBytes(8).toString('hex'), [
      { name: 'get', path: (id) => `/api/admin/llm/chats/${id}` },
      { name: 'patch', path: (id) => `/api/admin/llm/chats/${id}`, init: () => json('PATCH', { title: 'mine now' }) },
      { name: 'append', path: (id) => `/api/admin/llm/chats/${id}/messages`, init: () => json('POST', { messages: [{ role: 'user', content: 'hi' }] }) },
      { name: 'delete', path: (id) => `/api/admin/llm/chats/${id}`, init: () => ({ method: 'DELETE' }) },
      { name: 'export', path: (id) => `/api/admin/llm/chats/${id}/export` },
    ]);
  }, 120_000);

  it("answers every file route for A's 100 uploads as for a missing file, and a run naming one too", async () => {
    await expectAsMissing(
      t,
      b,
      inputs,
      () => `none-${crypto.randomBytes(3).toString('hex')}.png`,
      [
        { name: 'file', path: (p) => `/api/admin/assets/file?type=inputs&path=${encodeURIComponent(p)}` },
        { name: 'thumbnail', path: (p) => `/api/admin/assets/thumbnail?type=inputs&path=${encodeURIComponent(p)}` },
        { name: 'engine view', path: (p) => `/api/engine/view?type=input&filename=${encodeURIComponent(p)}` },
        { name: 'delete', path: () => '/api/admin/assets/delete', init: (p) => json('POST', { type: 'inputs', files: [p] }) },
        { name: 'gallery to input', path: (p) => `/api/admin/loras/gallery/to-input/${encodeURIComponent(p)}`, init: () => ({ method: 'POST' }) },
      ],
      (p) => p.replace(/\.png$/, ''),
    );
    for (const image of inputs.slice(0, 10)) {
      const run = (name: string) => executeRaw((p, init) => as(t, b.cookie, p, init), 'image-filter', { params: { _existing_input_image: name } });
      const missing = `none-${crypto.randomBytes(3).toString('hex')}.png`;
      const theirs = await answer(await run(image), image);
      expect(theirs).toMatch(/^400 /);
      expect(theirs).toBe(await answer(await run(missing), missing));
    }
  }, 120_000);

  it("answers the removal of the chat-bot chats A's key admitted as for chats never admitted", async () => {
    await expectAsMissing(t, b, botChats.map(String), () => String(9_000_000 + Math.floor(Math.random() * 1000)), [
      { name: 'remove', path: (id) => `/api/admin/chatbot/chats/${id}`, init: () => ({ method: 'DELETE' }) },
    ]);
    expect((await as(t, b.cookie, '/api/admin/chatbot/chats')).status).toBe(403);
  });

  it("leaves A's records as they were, and lists none of them to B", async () => {
    const presets = async (auth: SignedIn['cookie']) => ((await (await as(t, auth, '/api/admin/presets')).json()) as PresetListEntry[]).map((p) => p.id);
    expect((await presets(b.cookie)).filter((id) => presetIds.includes(id))).toEqual([]);
    expect((await presets(a.cookie)).filter((id) => presetIds.includes(id))).toHaveLength(100);
    const chats = async (auth: SignedIn['cookie']) => ((await (await as(t, auth, '/api/admin/llm/chats')).json()) as { chats: Array<{ id: string; title: string; message_count: number }> }).chats;
    expect((await chats(b.cookie)).filter((c) => chatIds.includes(c.id))).toEqual([]);
    const mine = (await chats(a.cookie)).filter((c) => chatIds.includes(c.id));
    expect(mine).toHaveLength(100);
    expect(mine.every((c) => c.title.startsWith("A's chat") && c.message_count === 1)).toBe(true);
    const listing = async (auth: SignedIn['cookie']) => ((await (await as(t, auth, '/api/admin/assets/inputs')).json()) as AssetListing).files.map((f) => f.path);
    expect((await listing(b.cookie)).filter((p) => inputs.includes(p))).toEqual([]);
    expect((await listing(a.cookie)).sort()).toEqual([...inputs].sort());
    const admitted = (await (await t.api('/api/admin/chatbot/chats')).json()) as { admitted: Array<{ id: number }> };
    expect(admitted.admitted.map((c) => c.id)).toEqual(botChats);
  });
});
