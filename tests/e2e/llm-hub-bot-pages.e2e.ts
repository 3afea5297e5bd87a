/**
 * The LLM, model hub lookup and chat bot pages in headless Chromium against a real Studio with the
 * stand-in engine and the local fakes the backend tests use: each page's main path, no sideways
 * scrolling at phone width, screenshots at 1440×900 and 390×844.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../server/config.js';
import { launchBrowser, newSignedInPage, saveScreenshot, VIEWPORTS, type TestBrowser } from '../helpers/browser.js';
import { startFakeFileServer, type FakeFileServer } from '../helpers/fake-file-server.js';
import { axeViolations, overflowing } from '../helpers/page-checks.js';
import { RICH_IMAGE, seedHub } from '../helpers/fake-hub-data.js';
import { startFakeHub, type FakeHub } from '../helpers/fake-hub-server.js';
import { seedGallery, testImage } from '../helpers/fake-gallery.js';
import { startFakeChatPlatform, type FakeChatPlatform } from '../helpers/fake-chat-platform.js';
import { freePort } from '../helpers/ports.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';
import { plantModels, SHIPPED_MODELS } from '../helpers/runner.js';
import { createUpdateRepo, versionJson } from '../integration/system/update-fixture.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

let studio: TestStudio;
let browser: TestBrowser;
let context: BrowserContext;
let page: Page;
let dir: string;
let fakeHost: FakeFileServer;
const FAKE_LLAMA = path.join(APP_ROOT, 'tests', 'fixtures', 'children', 'fake-llama-server.mjs');
const LLM_FILE = 'tiny-chat.gguf';
// The fake llama-server reads its behaviour from the model file: a slow token stream.
const LLM_BYTES = Buffer.concat([Buffer.from('{"tokenMs":120}'), Buffer.alloc(2 * 1024 * 1024 - 15, 0x20)]);
const repoDirs: string[] = [];

/** An LLM catalog with one small model served by the fake repository host. */
function writeLlmCatalog(catalogDir: string): void {
  fs.mkdirSync(catalogDir, { recursive: true });
  const entry = { name: 'Tiny chat model', file: LLM_FILE, dest: '.', size_gb: LLM_BYTES.length / 1024 ** 3, base_model: 'Tiny', tags: ['gguf'], source: 'repohost', hosted_repo: 'studio-test/tiny-chat' };
  fs.writeFileSync(path.join(catalogDir, 'llm_models.json'), JSON.stringify({ version: 1, date: '2026-11-25 10:00', categories: [{ id: 'small', name: 'Small', models: [entry] }] }));
}

/** What the fake llama-server recorded: its argv, then every chat request. */
function llamaRecords(): Array<Record<string, unknown>> {
  const file = path.join(studio.studio.config.paths.llmModels, `${LLM_FILE}.record.jsonl`);
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) : [];
}

/** Every Studio this file starts takes the test API key, so the main studio's key signs in to any of them. */

/** Screenshots of one page at desktop and phone width; nothing wider than a phone, no serious axe-core issue at either width. */
async function shootBoth(route: string, name: string, ready: (p: Page) => Promise<void>, base = studio.url): Promise<void> {
  for (const [label, viewport] of VIEWPORTS) {
    const { context: ctx, page: p } = await newSignedInPage(browser, { url: base, apiKey: studio.apiKey }, viewport);
    await p.goto(`${base}${route}`);
    await ready(p);
    const problems = [...(label === 'phone' ? await overflowing(p) : []), ...(await axeViolations(p))];
    expect(problems, `${route} at ${label} width`).toEqual([]);
    await saveScreenshot(p, `${name}-${label}`);
    await ctx.close();
  }
}

beforeAll(async () => {
  ensureRendererBuilt();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-admin-e2e-'));
  // The repository Studio updates from, one backend version ahead (only checked here, never applied).
  const repoRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-admin-repo-'));
  repoDirs.push(repoRoot);
  const repo = createUpdateRepo(repoRoot);
  repo.push({ 'resources/version.json': versionJson({ app: '9.9.0', backend: '9.9.0' }) }, 'v9.9');
  fakeHost = await startFakeFileServer({ content: LLM_BYTES, throttleBytesPerSec: 1024 * 1024 });
  writeLlmCatalog(path.join(dir, 'catalogs'));
  const llamaServer = path.join(repoRoot, 'llama-server');
  fs.writeFileSync(llamaServer, `#!/bin/sh\nexec "${process.execPath}" "${FAKE_LLAMA}" "$@"\n`, { mode: 0o755 });
  studio = await startTestStudio({ dir, startEngine: true, env: { LLM_BINARY: llamaServer, LLM_PORT: String(await freePort()), REPOHOST_BASE_URL: fakeHost.url, REPO_URL: repo.url, STANDIN_STEP_MS: '20', STUDIO_TELEMETRY_SAMPLE_MS: '500', CHATBOT_BOT_NAME: 'studio_test_bot' } });
  await studio.studio.engineReady(60_000);
  // The stand-in, like the engine, refuses a checkpoint its model folders do not hold.
  plantModels(dir, SHIPPED_MODELS);
  browser = await launchBrowser();
  ({ context, page } = await newSignedInPage(browser, studio));
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await studio?.stop();
  await fakeHost?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  for (const d of repoDirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('LLM page', () => {
  it('downloads a model from the catalog with live progress', async () => {
    await page.goto(`${studio.url}/llm`);
    const item = page.getByRole('listitem', { name: 'Tiny chat model' });
    await item.getByText('not downloaded').waitFor();
    await item.getByRole('button', { name: 'Download' }).click();
    await item.getByRole('progressbar').waitFor();
    await item.getByText('on disk').waitFor({ timeout: 30_000 });
    expect(fs.statSync(path.join(studio.studio.config.paths.llmModels, LLM_FILE)).size).toBe(LLM_BYTES.length);
  });

  it('starts the server with the model and the configuration from the form', async () => {
    const server = page.getByRole('region', { name: 'Server' });
    await server.getByRole('combobox', { name: 'Model', exact: true }).selectOption(LLM_FILE);
    await server.getByLabel('Context size').fill('2048');
    await server.getByRole('button', { name: 'Start' }).click();
    await expect.poll(() => server.getByRole('status', { name: 'LLM server state' }).textContent(), { timeout: 30_000 }).toContain('running');
    await server.getByText('ok', { exact: true }).waitFor();
    const argv = (llamaRecords()[0]?.argv as string[]).join(' ');
    expect(argv).toMatch(/-c 2048/);
  });

  it('streams an answer token by token and stops it on request', async () => {
    const chat = page.getByRole('region', { name: 'Chat' });
    await chat.getByLabel('Message').fill('Tell me a story');
    await chat.getByRole('button', { name: 'Send' }).click();
    const answer = chat.getByRole('article', { name: 'Assistant' });
    await expect.poll(() => answer.textContent()).toContain('tok1');
    // Still arriving: more tokens than before, while the stop button shows.
    const partial = (await answer.textContent()) ?? '';
    await expect.poll(async () => ((await answer.textContent()) ?? '').length).toBeGreaterThan(partial.length);
    await chat.getByRole('button', { name: 'Stop' }).click();
    await chat.getByRole('button', { name: 'Send' }).waitFor();
    const stopped = (await answer.textContent()) ?? '';
    expect(stopped).not.toContain('tok20');
    await expect.poll(() => llamaRecords().some((r) => r.aborted === true)).toBe(true);
  });

  it('sends the chat\'s own sampling settings and copies an answer', async () => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: studio.url });
    const chat = page.getByRole('region', { name: 'Chat' });
    await chat.getByRole('button', { name: 'New chat' }).click();
    await chat.getByRole('button', { name: 'Settings' }).click();
    await chat.getByLabel('Max tokens').fill('3');
    await chat.getByLabel('Temperature').fill('0.25');
    await chat.getByLabel('Message').fill('Short please');
    await chat.getByLabel('Message').press('Enter');
    const answer = chat.getByRole('article', { name: 'Assistant' });
    await expect.poll(() => answer.textContent()).toContain('tok2');
    await chat.getByText(/7 prompt \+ 3 answer tokens/).waitFor();
    const request = llamaRecords().filter((r) => r.request).at(-1)!.request as Record<string, unknown>;
    expect(request).toMatchObject({ max_tokens: 3, temperature: 0.25, stream: true });
    await answer.getByRole('button', { name: 'Copy answer' }).click();
    await expect.poll(() => page.evaluate<string>('navigator.clipboard.readText()')).toBe('tok0 tok1 tok2 ');
    await saveScreenshot(page, 'llm-chat-desktop');
    await shootBoth('/nodes', 'nodes', async (q) => void (await q.getByText('Engine Core').waitFor()));
    await shootBoth('/llm', 'llm', async (p) => void (await p.getByRole('status', { name: 'LLM server state' }).waitFor()));
  });

  it('stops the server and deletes the model after confirming', async () => {
    const server = page.getByRole('region', { name: 'Server' });
    await server.getByRole('button', { name: 'Stop' }).click();
    await expect.poll(() => server.getByRole('status', { name: 'LLM server state' }).textContent()).toContain('stopped');
    const item = page.getByRole('listitem', { name: 'Tiny chat model' });
    await item.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Delete LLM model' }).getByRole('button', { name: 'Delete' }).click();
    await item.getByText('not downloaded').waitFor();
    expect(fs.existsSync(path.join(studio.studio.config.paths.llmModels, LLM_FILE))).toBe(false);
  });
});

describe('Model hub lookup page', () => {
  let hubStudio: TestStudio;
  let hub: FakeHub;
  let ctx: BrowserContext;
  let p: Page;

  beforeAll(async () => {
    hub = await startFakeHub();
    hub.apiKeys.add('hub-secret');
    seedHub(hub);
    hub.media.set('5001.jpeg', { body: await testImage('jpeg', '#c63', 96, 64), type: 'image/jpeg' });
    const meta = RICH_IMAGE.meta as Record<string, unknown>;
    // One more resource: a LoRA whose creator allows generation only (restricted).
    const resources = [...(meta.civitaiResources as unknown[]), { type: 'lora', modelVersionId: 108, weight: 0.4 }];
    hub.images.set(5001, { ...RICH_IMAGE, url: `${hub.url}/media/5001.jpeg`, meta: { ...meta, civitaiResources: resources } });
    await seedGallery(hub, APP_ROOT);
    // The engine takes the input copy (as with any upload), so it runs here.
    hubStudio = await startTestStudio({ startEngine: true, env: { MODELHUB_BASE_URL: hub.url, MODELHUB_API_KEY: 'hub-secret', GALLERY_PAGE_DELAY_MS: '0' } });
    await hubStudio.studio.engineReady(60_000);
    ({ context: ctx, page: p } = await newSignedInPage(browser, { url: hubStudio.url, apiKey: studio.apiKey }));
  });

  afterAll(async () => {
    await ctx?.close();
    await hubStudio?.stop();
    await hub?.close();
  });

  it('looks up an image from its hub link: generation data, clean prompt, resources and LoRAs with catalog status', async () => {
    await p.goto(`${hubStudio.url}/modelhub`);
    await p.getByLabel('Image id or model hub image link').fill('https://civitai.com/images/5001?postId=1');
    await p.getByRole('button', { name: 'Look up' }).click();
    const image = p.getByRole('region', { name: 'Image 5001' });
    await image.getByText('a red fox in snow', { exact: false }).first().waitFor();
    expect(await image.locator('.prompt').first().textContent()).not.toContain('<lora:');
    await image.getByText('DPM++ 2M Karras').waitFor();
    const resources = p.getByRole('region', { name: 'Resources' });
    await resources.getByText('add_detail').waitFor();
    expect(await resources.getByText('not in the catalog').count()).toBeGreaterThan(0);
  });

  it('adds a resource to the catalog and explains a restricted one', async () => {
    const resources = p.getByRole('region', { name: 'Resources' });
    const jugg = resources.getByRole('listitem', { name: 'Juggernaut XL' });
    await jugg.getByRole('button', { name: 'Add to catalog' }).click();
    await jugg.getByText(/Added to the Models catalog as juggernautXL_v9\.safetensors/).waitFor();
    const models = (await (await hubStudio.api('/api/admin/models')).json()) as { categories: Array<{ models: Array<{ file: string }> }> };
    expect(models.categories.flatMap((c) => c.models).some((m) => m.file === 'juggernautXL_v9.safetensors')).toBe(true);
    const genOnly = resources.getByRole('listitem', { name: 'Gen Only' });
    await genOnly.getByRole('button', { name: 'Add to catalog' }).click();
    await genOnly.getByText(/does not allow downloads/).waitFor();
  });

  it('shows the picture, makes a preset from the image and copies it into the inputs', async () => {
    const image = p.getByRole('region', { name: 'Image 5001' });
    await image.getByRole('button', { name: 'Show the picture' }).click();
    await expect.poll(() => image.getByRole('img', { name: 'Model hub image 5001' }).evaluate((img: { complete: boolean; naturalWidth: number }) => img.complete && img.naturalWidth)).toBe(96);
    await image.getByRole('button', { name: 'Make a preset' }).click();
    await image.getByText(/Preset “.+” saved/).waitFor();
    const presets = (await (await hubStudio.api('/api/admin/presets')).json()) as Array<{ source_type?: string; modelhub_image_id?: number }>;
    expect(presets.some((x) => x.source_type === 'modelhub' && x.modelhub_image_id === 5001)).toBe(true);
    await image.getByRole('button', { name: 'Use as input' }).click();
    const note = image.getByText(/Copied to the inputs as/);
    await note.waitFor();
    const name = /as (\S+);/.exec((await note.textContent()) ?? '')![1]!;
    expect(fs.existsSync(path.join(hubStudio.dir, 'assets', 'input', name))).toBe(true);
    await shootBoth('/modelhub', 'modelhub', async (q) => {
      await q.getByLabel('Image id or model hub image link').fill('5001');
      await q.getByRole('button', { name: 'Look up' }).click();
      await q.getByRole('region', { name: 'Resources' }).waitFor();
    }, hubStudio.url);
  });

  it('opens a model\'s gallery from the Models page', async () => {
    await p.goto(`${hubStudio.url}/models`);
    await p.getByRole('link', { name: /^Gallery of Juggernaut XL/ }).click();
    await p.waitForURL(`${hubStudio.url}/gallery/11`);
    // The image fetched by the lookup above went into its model's gallery.
    await p.getByRole('img', { name: /^Image 5001 by/ }).waitFor();
  });

  it('fetches a gallery with progress, filters, stars, shows metadata, uses an image as input and deletes all', async () => {
    await p.goto(`${hubStudio.url}/gallery/12`);
    await p.getByText(/No images here yet/).waitFor();
    await p.getByRole('button', { name: 'Fetch more from the hub' }).click();
    const tiles = p.getByRole('figure');
    // Two originals and four community items (a fifth's media is gone on the hub).
    await expect.poll(() => tiles.count(), { timeout: 30_000 }).toBe(6);
    await p.getByRole('figure', { name: 'Video 8003' }).waitFor();
    await p.getByLabel('Source').selectOption('original');
    await expect.poll(() => tiles.count()).toBe(2);
    await p.getByLabel('Source').selectOption('');
    await p.getByRole('button', { name: 'Star 8001' }).click();
    await p.getByRole('button', { name: 'Unstar 8001' }).waitFor();
    await p.getByLabel('Starred only').check();
    await expect.poll(() => tiles.count()).toBe(1);
    await p.getByLabel('Starred only').uncheck();
    await expect.poll(() => tiles.count()).toBe(6);
    await p.getByRole('button', { name: 'Info on 8001' }).click();
    const meta = p.getByRole('dialog', { name: 'Metadata of 8001' });
    await expect.poll(() => meta.locator('pre').textContent()).toContain('a fox');
    await shootBoth('/gallery/12', 'gallery', async (q) => void (await q.getByRole('figure', { name: 'Image 8001' }).waitFor()), hubStudio.url);
    await meta.getByRole('button', { name: 'Close' }).click();
    await p.getByRole('button', { name: 'Use 8001 as input' }).click();
    await p.getByText(/Copied to the inputs as gallery_8001/).waitFor();
    await p.getByRole('button', { name: 'Delete all' }).click();
    await p.getByRole('dialog', { name: 'Delete the gallery' }).getByRole('button', { name: 'Delete all' }).click();
    await p.getByText(/No images here yet/).waitFor();
    expect(fs.existsSync(path.join(hubStudio.dir, 'gallery', '12'))).toBe(false);
  });
});

describe('Chat bot page', () => {
  let botStudio: TestStudio;
  let platform: FakeChatPlatform;
  let ctx: BrowserContext;
  let p: Page;

  beforeAll(async () => {
    platform = await startFakeChatPlatform();
    // Short long polls: a failure set up mid-test is met within a second.
    botStudio = await startTestStudio({ env: { CHATBOT_API_BASE_URL: platform.url, CHATBOT_BOT_NAME: 'studio_e2e_bot', CHATBOT_POLL_TIMEOUT_S: '1' } });
    ({ context: ctx, page: p } = await newSignedInPage(browser, { url: botStudio.url, apiKey: studio.apiKey }));
  });

  afterAll(async () => {
    await ctx?.close();
    await botStudio?.stop();
    await platform?.close();
  });

  it('refuses to start without a token, then starts with one entered (masked) and stops', async () => {
    await p.goto(`${botStudio.url}/chatbot`);
    const state = p.getByRole('status', { name: 'Chat bot state' });
    await expect.poll(() => state.textContent()).toBe('stopped');
    await p.getByRole('button', { name: 'Start' }).click();
    await expect.poll(() => p.getByRole('status', { name: 'Last action' }).textContent()).toContain('no token configured');
    await p.getByRole('button', { name: 'Edit Bot token' }).click();
    await p.getByLabel('New Bot token').fill(platform.token);
    await p.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => p.getByLabel('Bot token', { exact: true }).textContent()).not.toBe('(not set)');
    expect(await p.getByLabel('Bot token', { exact: true }).textContent()).not.toContain(platform.token);
    if ((await state.textContent()) !== 'running') await p.getByRole('button', { name: 'Start' }).click();
    await expect.poll(() => state.textContent()).toBe('running');
    await platform.waitFor((calls) => calls.some((c) => c.method === 'getUpdates'), 15_000);
    await p.getByText('studio_e2e_bot').first().waitFor();
    // A chat admits itself with the key: the page lists it as it happens.
    platform.sendText(4242, `/key ${botStudio.apiKey}`);
    const admitted = p.getByRole('list', { name: 'Admitted chats' });
    await admitted.getByText('Tester (4242)').waitFor();
    await shootBoth('/chatbot', 'chatbot', async (q) => void (await q.getByRole('list', { name: 'Admitted chats' }).getByText('Tester (4242)').waitFor()), botStudio.url);
    await admitted.getByRole('button', { name: 'Remove Tester (4242)' }).click();
    await p.getByRole('dialog', { name: 'Remove chat' }).getByRole('button', { name: 'Remove' }).click();
    await p.getByText('No chat has been admitted with').waitFor();
    expect(((await (await botStudio.api('/api/admin/chatbot/chats')).json()) as { admitted: unknown[] }).admitted).toEqual([]);
    // Its polls fail (the platform drops them): the page says "failing" and why, not "running".
    platform.failNext('getUpdates', ...Array.from({ length: 30 }, () => 'drop' as const));
    await expect.poll(() => state.textContent(), { timeout: 20_000 }).toBe('failing');
    expect(await p.getByText(/Started, but no chat is answered: the last (poll|\d+ polls) of the chat platform failed\. Last error: the chat platform could not be reached/).count()).toBe(1);
    await p.getByRole('button', { name: 'Stop' }).click();
    await expect.poll(() => state.textContent()).toBe('stopped');
    await expect.poll(() => p.getByRole('status', { name: 'Last action' }).textContent()).toContain('stopped');
  });
});
