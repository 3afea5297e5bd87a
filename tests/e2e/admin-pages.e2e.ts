/**
 * The admin pages (presets, system, LLM; node packages have `nodes-page.e2e.ts`) in headless Chromium against a real
 * Studio with the stand-in engine and the local fakes the backend tests use: each page's main
 * path, no sideways scrolling at phone width, screenshots at 1440×900 and 390×844.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../server/config.js';
import { DESKTOP, launchBrowser, newSignedInPage, PHONE, saveScreenshot, signIn as signInTo, VIEWPORTS, type TestBrowser } from '../helpers/browser.js';
import { startFakeFileServer, type FakeFileServer } from '../helpers/fake-file-server.js';
import { axeViolations, overflowing } from '../helpers/page-checks.js';
import { RICH_IMAGE, seedHub } from '../helpers/fake-hub-data.js';
import { startFakeHub, type FakeHub } from '../helpers/fake-hub-server.js';
import { seedGallery, testImage } from '../helpers/fake-gallery.js';
import { startFakeChatPlatform, type FakeChatPlatform } from '../helpers/fake-chat-platform.js';
import { freePort } from '../helpers/ports.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';
import { plantModels, SHIPPED_MODELS } from '../helpers/runner.js';
import { startStudioProcess } from '../helpers/studio-process.js';
import { createUpdateRepo, versionJson } from '../integration/system/update-fixture.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

const IMAGE = path.join(APP_ROOT, 'resources', 'standin', 'image.png');

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

async function json<T>(pathname: string, init?: RequestInit): Promise<T> {
  const res = await studio.api(pathname, init);
  if (!res.ok) throw new Error(`${pathname}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

async function post(pathname: string, body: unknown): Promise<Response> {
  return studio.api(pathname, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
}

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
const signIn = (p: Page, base = studio.url) => signInTo(p, { url: base, apiKey: studio.apiKey });

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

describe('Presets page', () => {
  beforeAll(async () => {
    const story = { id: 'story', name: 'Story', workflow: { workflow_id: 'txt2img-sdxl', params: { positive: 'a [[Animal:fox|snow hare]] at [[Time:dawn|dusk]]', steps: 2 } } };
    const hub = { id: 'hub_42', name: 'Hub fox', workflow: { workflow_id: 'txt2img-sdxl', params: { positive: 'a fox', steps: 2 } }, source: { type: 'modelhub', modelhub_image_id: 42, detected_type: 't2i' } };
    const blur = { id: 'blur', name: 'Soft blur', workflow: { workflow_id: 'image-filter', params: { strength: 0.2, blur_radius: 2 } } };
    for (const preset of [story, hub, blur]) expect((await post('/api/admin/presets', preset)).status).toBe(200);
  });

  it('lists presets with their source badges and a link to the hub image', async () => {
    await page.goto(`${studio.url}/presets`);
    const hub = page.getByRole('article', { name: 'Hub fox' });
    await hub.getByText('From the model hub').waitFor();
    expect(await hub.getByRole('link', { name: 'Hub image #42' }).getAttribute('href')).toMatch(/\/images\/42$/);
    await page.getByRole('article', { name: 'Story' }).getByText('Made by hand').waitFor();
  });

  it('runs a preset with its placeholder questions as choices, and the answer reaches the job', async () => {
    await page.getByRole('article', { name: 'Story' }).getByRole('button', { name: 'Run' }).click();
    const panel = page.getByRole('region', { name: 'Run Story' });
    await panel.getByRole('group', { name: 'Animal' }).getByLabel('snow hare').check();
    await panel.getByRole('group', { name: 'Time' }).getByLabel('dusk').check();
    await saveScreenshot(page, 'presets-run-desktop');
    await panel.getByRole('button', { name: 'Run preset' }).click();
    const bar = panel.getByRole('progressbar', { name: 'Preset job progress' });
    await expect.poll(() => bar.getAttribute('aria-valuenow'), { timeout: 30_000 }).toBe('100');
    const history = await json<Array<{ params: Record<string, unknown>; status: string }>>('/api/admin/history?limit=10');
    expect(history[0]?.params.positive).toBe('a snow hare at dusk');
    await panel.getByRole('button', { name: 'Close' }).click();
  });

  it('asks for the input image of a workflow that takes one, and runs with it', async () => {
    await page.getByRole('article', { name: 'Soft blur' }).getByRole('button', { name: 'Run' }).click();
    const panel = page.getByRole('region', { name: 'Run Soft blur' });
    const runButton = panel.getByRole('button', { name: 'Run preset' });
    await panel.getByText('This workflow needs an input image.').waitFor();
    expect(await runButton.isDisabled()).toBe(true);
    await panel.getByLabel('Input image').setInputFiles(IMAGE);
    await runButton.click();
    await expect.poll(() => panel.getByRole('progressbar', { name: 'Preset job progress' }).getAttribute('aria-valuenow'), { timeout: 30_000 }).toBe('100');
    await panel.getByRole('img', { name: 'Result image' }).waitFor();
    await shootBoth('/presets', 'presets', async (p) => void (await p.getByRole('article', { name: 'Story' }).waitFor()));
    await panel.getByRole('button', { name: 'Close' }).click();
  });

  it('renames a preset (name and id) and the file follows', async () => {
    const card = page.getByRole('article', { name: 'Soft blur' });
    await card.getByRole('button', { name: 'Rename' }).click();
    await card.getByLabel('Name', { exact: true }).fill('Gentle blur');
    await card.getByLabel('Id (file name)').fill('gentle');
    await card.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('article', { name: 'Gentle blur' }).waitFor();
    expect(fs.existsSync(path.join(dir, 'presets', 'gentle.json'))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'presets', 'blur.json'))).toBe(false);
  });

  it('exports a preset as a file and imports it back under its id', async () => {
    const card = page.getByRole('article', { name: 'Story' });
    const [download] = await Promise.all([page.waitForEvent('download'), card.getByRole('link', { name: 'Export' }).click()]);
    const saved = path.join(dir, 'export.json');
    await download.saveAs(saved);
    const exported = JSON.parse(fs.readFileSync(saved, 'utf8')) as { id: string; workflow: { workflow_id: string } };
    expect(exported.workflow.workflow_id).toBe('txt2img-sdxl');
    const copy = path.join(dir, 'story-copy.json');
    fs.writeFileSync(copy, JSON.stringify({ ...exported, id: 'story-copy', name: 'Story copy' }));
    await page.getByLabel('Import a preset file').setInputFiles(copy);
    await page.getByRole('article', { name: 'Story copy' }).waitFor();
  });

  it('deletes a preset only after confirming', async () => {
    const card = page.getByRole('article', { name: 'Story copy' });
    await card.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete preset' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(fs.existsSync(path.join(dir, 'presets', 'story-copy.json'))).toBe(true);
    await card.getByRole('button', { name: 'Delete' }).click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await card.waitFor({ state: 'detached' });
    expect(fs.existsSync(path.join(dir, 'presets', 'story-copy.json'))).toBe(false);
  });
});

describe('System page', () => {
  it('shows versions, uptime, engine, database counts and live telemetry', async () => {
    await page.goto(`${studio.url}/system`);
    const components = page.getByRole('region', { name: 'Components' });
    await components.getByRole('cell', { name: 'Workflows' }).waitFor();
    await components.getByRole('cell', { name: 'Backend' }).waitFor();
    await page.getByText('running', { exact: true }).waitFor();
    // Headless: the backend's git update applies, and the page says so (the desktop app updates itself).
    await page.getByRole('region', { name: 'App updates' }).getByText(/updates its backend and data from git/).waitFor();
    const db = page.getByRole('region', { name: 'Database' });
    const jobs = await json<unknown[]>('/api/admin/history?limit=100');
    await db.getByRole('row', { name: `jobs ${jobs.length} row${jobs.length === 1 ? '' : 's'}` }).waitFor();
    // Samples arrive every 500 ms: the CPU chart gets a value, then keeps moving live.
    const cpu = page.getByRole('img', { name: /^CPU over the last 30 minutes, now \d+ percent$/ });
    await cpu.waitFor();
    const points = () => cpu.locator('polyline').getAttribute('points').then((p) => (p ?? '').split(' ').filter(Boolean).length);
    const before = await points();
    await expect.poll(points, { timeout: 10_000 }).toBeGreaterThan(before);
  });

  it('checks the repository for a newer version and offers the update', async () => {
    const components = page.getByRole('region', { name: 'Components' });
    await components.getByRole('button', { name: 'Check for updates' }).click();
    await components.getByRole('row', { name: /^Backend .* 9\.9\.0$/ }).waitFor();
    expect(await components.getByRole('button', { name: 'Update', exact: true }).isEnabled()).toBe(true);
  });

  it('masks secrets, edits a setting, and reveals only with the right API key', async () => {
    const env = page.getByRole('region', { name: 'Environment settings' });
    const apiKey = env.getByLabel('Value of API_KEY');
    expect(await apiKey.textContent()).not.toContain(studio.apiKey);
    await env.getByRole('button', { name: 'Edit CHATBOT_BOT_NAME' }).click();
    await env.getByLabel('New value of CHATBOT_BOT_NAME').fill('renamed_bot');
    await env.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => env.getByLabel('Value of CHATBOT_BOT_NAME').textContent()).toContain('renamed_bot');
    await env.getByRole('button', { name: 'Reveal secrets…' }).click();
    await env.getByLabel(/^API key/).fill('not-the-key');
    await env.getByRole('button', { name: 'Reveal', exact: true }).click();
    await expect.poll(() => env.getByRole('alert').textContent()).toContain('does not match');
    await env.getByLabel(/^API key/).fill(studio.apiKey);
    await env.getByRole('button', { name: 'Reveal', exact: true }).click();
    await expect.poll(() => apiKey.textContent()).toBe(studio.apiKey);
    await shootBoth('/system', 'system', async (p) => {
      await p.getByRole('region', { name: 'Components' }).waitFor();
      await p.getByText('Authentication & API Tokens').waitFor();
      await p.waitForTimeout(1200); // a few live telemetry samples, so the charts have lines
    });
    await env.getByRole('button', { name: 'Hide secrets' }).click();
    expect(await apiKey.textContent()).not.toContain(studio.apiKey);
  });

  it('downloads the browser extension as a ZIP', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download the extension (ZIP)' }).click()]);
    const saved = path.join(dir, 'extension.zip');
    await download.saveAs(saved);
    // A ZIP starts with the local file header signature.
    expect(fs.readFileSync(saved).subarray(0, 4).toString('hex')).toBe('504b0304');
  });

  it('restarts Studio and reconnects to the new process', async () => {
    const procDir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-restart-e2e-'));
    const proc = await startStudioProcess({ STUDIO_DIR: procDir, ENGINE_MODE: 'external', ENGINE_PORT: '9' });
    const group = proc.child.pid!;
    const ctx = await browser.context(DESKTOP);
    try {
      const p = await ctx.newPage();
      await signIn(p, proc.url);
      await p.goto(`${proc.url}/system`);
      const before = await (await proc.api('/api/admin/system/uptime')).json() as { started_at: string };
      await p.getByRole('button', { name: 'Restart Studio' }).click();
      await p.getByRole('dialog', { name: 'Restart Studio' }).getByRole('button', { name: 'Restart' }).click();
      await p.getByRole('status').filter({ hasText: 'Studio restarted and this page reconnected.' }).waitFor({ timeout: 60_000 });
      const after = await (await proc.api('/api/admin/system/uptime')).json() as { started_at: string };
      expect(after.started_at).not.toBe(before.started_at);
      // The page shows the new process: its uptime starts again from seconds.
      expect(await p.getByLabel('Uptime').textContent()).toMatch(/^\d+ s$/);
    } finally {
      await ctx.close();
      // The replacement runs in the first process's group: end them all.
      try {
        process.kill(-group, 'SIGKILL');
      } catch {}
      await proc.kill();
      fs.rmSync(procDir, { recursive: true, force: true });
    }
  });
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
    botStudio = await startTestStudio({ env: { CHATBOT_API_BASE_URL: platform.url, CHATBOT_BOT_NAME: 'studio_e2e_bot' } });
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
    await p.getByRole('button', { name: 'Stop' }).click();
    await expect.poll(() => state.textContent()).toBe('stopped');
    await expect.poll(() => p.getByRole('status', { name: 'Last action' }).textContent()).toContain('stopped');
  });
});

describe('Navigation on a phone', () => {
  it('groups the pages and shows one group at a time, the current page\'s first', async () => {
    const ctx = await browser.context(PHONE);
    try {
      const p = await ctx.newPage();
      await signIn(p);
      await p.goto(`${studio.url}/presets`);
      await p.getByRole('button', { name: 'Menu' }).click();
      const nav = p.getByRole('navigation', { name: 'Main' });
      expect(await nav.getByRole('button', { name: 'Create' }).getAttribute('aria-expanded')).toBe('true');
      expect(await nav.getByRole('link', { name: 'Presets' }).isVisible()).toBe(true);
      expect(await nav.getByRole('link', { name: 'LLM' }).isVisible()).toBe(false);
      // A short drawer: the three group buttons and the open group's four links.
      expect(await nav.getByRole('link').filter({ visible: true }).count()).toBe(4);
      await nav.getByRole('button', { name: 'Models' }).click();
      expect(await nav.getByRole('link', { name: 'Presets' }).isVisible()).toBe(false);
      await saveScreenshot(p, 'nav-groups-phone', { fullPage: false });
      await nav.getByRole('link', { name: 'LLM' }).click();
      await p.waitForURL(`${studio.url}/llm`);
      await p.getByRole('heading', { name: 'LLM', level: 1 }).waitFor();
      expect(await p.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(false);
    } finally {
      await ctx.close();
    }
  });
});
