/**
 * The admin pages (presets, system; node packages have `nodes-page.e2e.ts`) and the navigation on a
 * phone in headless Chromium against a real Studio with the stand-in engine and the local fakes the
 * backend tests use: each page's main path, no sideways scrolling at phone width, screenshots at
 * 1440×900 and 390×844.
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
    // The bar reaches 100 % with the last step; the job is in the history once its outputs are collected, a moment later.
    const finished = async () => (await json<Array<{ params: Record<string, unknown>; status: string }>>('/api/admin/history?limit=10'))[0]?.params.positive;
    await expect.poll(finished, { timeout: 15_000 }).toBe('a snow hare at dusk');
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
      // A short drawer: the three group buttons and the open group's five links (Batches joined them).
      expect(await nav.getByRole('link').filter({ visible: true }).count()).toBe(5);
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
