/**
 * Kept chats: created with their model and settings, messages appended, renamed, listed newest
 * first, exported as Markdown and JSON, deleted; and still there after Studio restarts on the same
 * data folder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChatDetail, ChatSummary } from '../../../server/contracts/llm-chats.contract.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let t: TestStudio | null = null;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-chats-'));
afterAll(async () => {
  await t?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});
const send = (method: string, body: unknown) => ({ method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

describe('kept LLM chats', () => {
  it('keeps, renames, exports and deletes chats, across a restart', async () => {
    t = await startTestStudio({ dir });
    const created = await t.api('/api/admin/llm/chats', send('POST', { model: 'tiny.gguf', settings: { temperature: 0.2, system: 'Be brief.' } }));
    expect(created.status).toBe(201);
    const chat = (await created.json()) as ChatDetail;
    expect(chat).toMatchObject({ title: 'New chat', model: 'tiny.gguf', settings: { temperature: 0.2, system: 'Be brief.' }, messages: [] });

    const appended = (await (await t.api(`/api/admin/llm/chats/${chat.id}/messages`, send('POST', { messages: [{ role: 'user', content: 'A lighthouse at dusk, oil painting' }, { role: 'assistant', content: 'A **lighthouse** glows.' }] }))).json()) as ChatDetail;
    expect(appended.title).toBe('A lighthouse at dusk, oil painting');
    expect(appended.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    const other = (await (await t.api('/api/admin/llm/chats', send('POST', { title: 'Second' }))).json()) as ChatDetail;
    const renamed = await t.api(`/api/admin/llm/chats/${chat.id}`, send('PATCH', { title: 'Lighthouse prompts' }));
    expect(((await renamed.json()) as ChatDetail).title).toBe('Lighthouse prompts');

    await t.stop();
    t = await startTestStudio({ dir });
    const list = (await (await t.api('/api/admin/llm/chats')).json()) as { chats: ChatSummary[] };
    expect(list.chats.map((c) => [c.id, c.title, c.message_count])).toEqual([[chat.id, 'Lighthouse prompts', 2], [other.id, 'Second', 0]]);

    const md = await t.api(`/api/admin/llm/chats/${chat.id}/export?format=md`);
    expect(md.headers.get('content-disposition')).toBe('attachment; filename="Lighthouse-prompts.md"');
    const text = await md.text();
    expect(text).toContain('# Lighthouse prompts');
    expect(text).toContain('- Model: tiny.gguf');
    expect(text).toContain('## System prompt\n\nBe brief.');
    expect(text).toContain('## You\n\nA lighthouse at dusk, oil painting');
    expect(text).toContain('## Assistant\n\nA **lighthouse** glows.');
    const exported = (await (await t.api(`/api/admin/llm/chats/${chat.id}/export?format=json`)).json()) as ChatDetail;
    expect(exported.messages).toHaveLength(2);
    expect((await t.api(`/api/admin/llm/chats/${chat.id}/export?format=pdf`)).status).toBe(400);

    expect(await (await t.api(`/api/admin/llm/chats/${chat.id}`, { method: 'DELETE' })).json()).toEqual({ status: 'deleted', id: chat.id });
    expect((await t.api(`/api/admin/llm/chats/${chat.id}`)).status).toBe(404);
    expect((await t.api(`/api/admin/llm/chats/${chat.id}/messages`, send('POST', { messages: [{ role: 'user', content: 'x' }] }))).status).toBe(404);
    expect((await t.api(`/api/admin/llm/chats/${other.id}/messages`, send('POST', { messages: [{ role: 'robot', content: 'x' }] }))).status).toBe(400);
  }, 60_000);
});
