/**
 * A chat bound to a person (issue 43, point 5): `/key <personal key>` admits a chat as the person
 * whose key it is. From then on the chat sees that person's presets (and shared ones), runs as
 * them (their jobs, their quotas: a 429 comes back in words, a viewer's or read key's run is a 403
 * in words), and stops the moment the key is revoked or the person disabled (the chat is told to
 * send a new `/key`, and a new key binds it again). The API_KEY still admits a chat as the owner.
 *
 * Order matters (one Studio and one fake platform for the file): each test goes on from the last.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addPerson, as, json, makeKey, signIn, type Person } from '../../helpers/people.js';
import { startFakeChatPlatform, type FakeChatPlatform, type RecordedCall } from '../../helpers/fake-chat-platform.js';
import { plantModels, SHIPPED_MODELS } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import type { AuthModule } from '../../../server/http/auth.module.js';

const ANN_CHAT = 5101;
const VIC_CHAT = 5102;
const OWNER_CHAT = 5103;
let platform: FakeChatPlatform;
let t: TestStudio;
let ann: Person;
let bob: Person;
let annCookie: string;
let annKey: { id: string; key: string };

const sdxl = (id: string, name: string, extra: Record<string, unknown> = {}) => ({ id, name, workflow: { workflow_id: 'txt2img-sdxl', params: { positive: name, steps: 2 } }, ...extra });

beforeAll(async () => {
  platform = await startFakeChatPlatform();
  t = await startTestStudio({
    startEngine: true,
    env: { STANDIN_STEP_MS: '20', CHATBOT_BOT_TOKEN: platform.token, CHATBOT_API_BASE_URL: platform.url },
    chatbot: { progress: { pollMs: 100, minEditMs: 200 } },
  });
  await t.studio.engineReady();
  plantModels(t.dir, SHIPPED_MODELS);
  ann = await addPerson(t, 'Ann', 'member', { quotas: { jobs_per_hour: 1 }, allow: { workflows: ['txt2img-sdxl', 'txt2img-sdxl-lora'], models: ['checkpoints/'] } });
  bob = await addPerson(t, 'Bob', 'member');
  annCookie = await signIn(t, ann);
  annKey = await makeKey(t, annCookie, 'run');
  expect((await t.api('/api/admin/presets', json('POST', sdxl('for-all', 'For everyone', { shared: true })))).status).toBe(200);
  // Shared too, but past Ann's allow-lists: a workflow she may not run, a model she may not use.
  expect((await t.api('/api/admin/presets', json('POST', { id: 'noise', name: 'Noise for all', shared: true, workflow: { workflow_id: 'image-filter', params: {} } }))).status).toBe(200);
  const upscaled = { id: 'big', name: 'Big for all', shared: true, workflow: { workflow_id: 'txt2img-sdxl-lora', params: { positive: 'big', steps: 2, upscale: true } } };
  expect((await t.api('/api/admin/presets', json('POST', upscaled))).status).toBe(200);
  expect((await as(t, { cookie: annCookie }, '/api/admin/presets', json('POST', sdxl('anns', "Ann's lighthouse")))).status).toBe(200);
  expect((await as(t, { cookie: await signIn(t, bob) }, '/api/admin/presets', json('POST', sdxl('bobs', "Bob's secret")))).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await t?.stop();
  await platform?.close();
});

const to = (chatId: number) => (c: RecordedCall) => Number(c.params.chat_id) === chatId;
const messagesTo = (chatId: number) => platform.callsOf('sendMessage').filter(to(chatId));
const buttons = (call: RecordedCall | undefined) =>
  ((call?.params.reply_markup as { inline_keyboard?: Array<Array<{ text: string; callback_data: string }>> } | undefined)?.inline_keyboard ?? []).flat();
/** Send `text` and wait for the chat's next message matching `pattern`; that message. */
async function say(chatId: number, text: string, pattern: RegExp): Promise<RecordedCall> {
  const before = messagesTo(chatId).length;
  platform.sendText(chatId, text);
  await platform.waitFor(() => messagesTo(chatId).slice(before).some((c) => pattern.test(String(c.params.text))));
  return messagesTo(chatId).slice(before).find((c) => pattern.test(String(c.params.text)))!;
}
/** Press the button named `name` of the last menu and wait for a message matching `pattern`. */
async function press(chatId: number, menu: RecordedCall, name: string, pattern: RegExp): Promise<string> {
  const before = messagesTo(chatId).length;
  const button = buttons(menu).find((b) => b.text === name);
  expect(button, `button ${name}`).toBeDefined();
  platform.press(chatId, button!.callback_data);
  await platform.waitFor(() => messagesTo(chatId).slice(before).some((c) => pattern.test(String(c.params.text))), 30_000);
  return String(messagesTo(chatId).slice(before).find((c) => pattern.test(String(c.params.text)))!.params.text);
}
/** `POST presets/for-all/run` as the bot calls it for a chat bound to `userId` by `keyId`. */
async function presetRunAs(userId: string, keyId: string): Promise<{ status: number; detail: string }> {
  const auth = (t.studio.modules.find((m) => m.name === 'auth') as AuthModule).auth;
  const res = await fetch(`${t.url}/api/admin/presets/for-all/run`, { method: 'POST', headers: { ...auth.internalCredential({ userId, keyId }), 'Content-Type': 'application/json' }, body: '{}' });
  return { status: res.status, detail: ((await res.json()) as { detail: string }).detail };
}
const jobsOf = (owner: string) => (t.studio.db.prepare('SELECT prompt_id FROM jobs WHERE owner_id = ?').all(owner) as Array<{ prompt_id: string }>).map((r) => r.prompt_id);
const allJobs = () => (t.studio.db.prepare('SELECT COUNT(*) AS n FROM jobs').get() as { n: number }).n;

describe('a chat bound by a personal key', () => {
  it('is admitted as the key’s person, and the binding is kept', async () => {
    await say(ANN_CHAT, `/key ${annKey.key}`, /^Welcome, Ann! This chat may now use the bot as you/);
    const row = t.studio.db.prepare('SELECT value FROM settings WHERE key = ?').get('chatbot.allowed_chats') as { value: string };
    expect(JSON.parse(row.value)).toEqual([{ id: ANN_CHAT, title: 'Tester', admitted_at: expect.any(String) as string, owner_id: ann.id, key_id: annKey.id }]);
    const listed = (await (await t.api('/api/admin/chatbot/chats')).json()) as { admitted: unknown[] };
    expect(listed.admitted).toEqual([expect.objectContaining({ id: ANN_CHAT, owner_id: ann.id, key_id: annKey.id })]);
  });

  it('offers her presets and shared ones, runs as her, and answers her quota in words', async () => {
    const menu = await say(ANN_CHAT, 'hi', /Which preset/);
    // Not "Noise for all": its workflow is outside her allow-list (the list marks it not runnable).
    expect(buttons(menu).map((b) => b.text).sort()).toEqual(["Ann's lighthouse", 'Big for all', 'For everyone']);
    const jobs = allJobs();
    const model = await press(ANN_CHAT, menu, 'Big for all', /^I could not start/);
    expect(model).toMatch(/Studio refused it: You may not use the model "RealESRGAN_x4plus\.pth"/);
    expect(allJobs()).toBe(jobs);
    const first = await say(ANN_CHAT, 'now this one', /Which preset/);
    await press(ANN_CHAT, first, "Ann's lighthouse", /^⏳ Ann's lighthouse: queued$/);
    await platform.waitFor(() => platform.callsOf('sendPhoto').some(to(ANN_CHAT)), 30_000);
    expect(jobsOf(ann.id)).toHaveLength(1);

    // One job per hour: the second is refused before anything is queued, and the chat says when.
    const again = await say(ANN_CHAT, 'again', /Which preset/);
    const refused = await press(ANN_CHAT, again, 'For everyone', /^I could not start/);
    expect(refused).toMatch(/^I could not start "For everyone": you reached a limit: 1 job per hour reached; you can run again at \d\d:\d\d/);
    expect(allJobs()).toBe(jobs + 1);
  }, 60_000);

  it('reaches only her jobs through the bot’s credential', async () => {
    const bobsJob = await as(t, { cookie: await signIn(t, bob) }, '/api/admin/presets/bobs/run', json('POST', {}));
    const bobsId = ((await bobsJob.json()) as { prompt_id: string }).prompt_id;
    const auth = t.studio.modules.find((m) => m.name === 'auth') as AuthModule;
    const asAnn = auth.auth.internalCredential({ userId: ann.id, keyId: annKey.id });
    const status = (id: string, headers: Record<string, string>) => fetch(`${t.url}/api/run/status/${id}`, { headers });
    // The spec's answer for an id nobody submitted: pending, with no place in the queue.
    const unknown = (id: string) => ({ status: 'pending', prompt_id: id, queue_position: null });
    expect(await (await status(bobsId, asAnn)).json()).toEqual(unknown(bobsId));
    expect(await (await status(jobsOf(ann.id)[0]!, asAnn)).json()).toMatchObject({ status: 'completed' });
    expect(await (await status(bobsId, auth.auth.internalCredential())).json()).not.toEqual(unknown(bobsId));
    // The person headers mean nothing beside any other credential: Bob's key naming Ann is still Bob.
    const bobKey = await makeKey(t, await signIn(t, bob), 'run');
    const posing = { 'X-API-Key': bobKey.key, 'X-Studio-Person': ann.id, 'X-Studio-Person-Key': annKey.id };
    expect(await (await status(jobsOf(ann.id)[0]!, posing)).json()).toEqual(unknown(jobsOf(ann.id)[0]!));
    // A binding naming a key of someone else is no binding.
    expect((await status(bobsId, auth.auth.internalCredential({ userId: bob.id, keyId: annKey.id }))).status).toBe(401);
  }, 30_000);

  it('stops at once when the key is revoked, and a new key binds it again', async () => {
    expect((await as(t, { cookie: annCookie }, `/api/me/keys/${annKey.id}`, { method: 'DELETE' })).status).toBe(200);
    const told = await say(ANN_CHAT, 'hi', /^I could not list the presets/);
    expect(told.params.text).toMatch(/no longer accepts the key this chat was admitted with .*send \/key followed by a new personal key/);
    expect(buttons(told)).toEqual([]);

    annKey = await makeKey(t, annCookie, 'run', 'second');
    await say(ANN_CHAT, `/key ${annKey.key}`, /^Welcome, Ann!/);
    expect(buttons(await say(ANN_CHAT, 'hi', /Which preset/)).map((b) => b.text)).toContain("Ann's lighthouse");
  });

  it('stops at once when the person is disabled', async () => {
    expect((await t.api(`/api/admin/users/${ann.id}`, { method: 'DELETE' })).status).toBe(200);
    const told = await say(ANN_CHAT, 'hi', /^I could not list the presets/);
    expect(told.params.text).toMatch(/no longer accepts the key/);
  });

  it("a viewer's key binds a chat that looks but runs nothing", async () => {
    const vic = await addPerson(t, 'Vic', 'viewer');
    const vicKey = await makeKey(t, await signIn(t, vic), 'read');
    await say(VIC_CHAT, `/key ${vicKey.key}`, /^Welcome, Vic! .*This key may only look: it runs nothing\./);
    const told = await say(VIC_CHAT, 'hi', /^You may not run any of the 3 preset\(s\) here/);
    expect(buttons(told)).toEqual([]);
    // Had it a button, the run would still be Studio's 403, told in words.
    const jobs = allJobs();
    await expect(presetRunAs(vic.id, vicKey.id)).resolves.toMatchObject({ status: 403, detail: expect.stringMatching(/needs the run permission, and your role is viewer/) as string });
    expect(allJobs()).toBe(jobs);
  });

  it('the API key still admits a chat as the owner, who sees every preset; a new API_KEY leaves bound chats alone', async () => {
    await say(OWNER_CHAT, `/key ${t.apiKey}`, /^Welcome! This chat may now use the bot/);
    const menu = await say(OWNER_CHAT, 'hi', /Which preset/);
    expect(buttons(menu).map((b) => b.text).sort()).toEqual(["Ann's lighthouse", 'Big for all', "Bob's secret", 'For everyone', 'Noise for all']);
    expect((await t.api('/api/admin/settings/env', json('PUT', { key: 'API_KEY', value: 'another-key-0123456789' }))).status).toBe(200);
    const admitted = (await (await as(t, { key: 'another-key-0123456789' }, '/api/admin/chatbot/chats')).json()) as { admitted: Array<{ id: number }> };
    expect(admitted.admitted.map((c) => c.id)).toEqual([ANN_CHAT, VIC_CHAT]);
  });
});
