/**
 * The web UI in a real browser (headless Chromium) against a real Studio with the stand-in
 * engine: sign in, run the no-weights workflow, survive a reload mid-run, retry and delete from
 * history, download a model from a local fake server, filter events; screenshots of every page.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../server/config.js';
import { DESKTOP, findChromium, launchBrowser, saveScreenshot, type TestBrowser, resizeTo } from '../helpers/browser.js';
import { startFakeFileServer, type FakeFileServer } from '../helpers/fake-file-server.js';
import { ensureRendererBuilt, initialJsGzipBytes } from '../helpers/renderer-build.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

const IMAGE = path.join(APP_ROOT, 'resources', 'standin', 'image.png');
const MODEL_FILE = 'tiny-test-model.safetensors';
const MODEL_BYTES = 3 * 1024 * 1024;

let studio: TestStudio;
let fake: FakeFileServer;
let browser: TestBrowser;
let context: BrowserContext;
let page: Page;
let dir: string;

/** A catalog with one small entry served by the fake file server (as the repository host). */
function writeTestCatalog(catalogDir: string): void {
  fs.mkdirSync(catalogDir, { recursive: true });
  const entry = { name: 'Tiny test model', file: MODEL_FILE, dest: 'checkpoints', size_gb: MODEL_BYTES / 1024 ** 3, base_model: 'SD 1.5', tags: [], source: 'repohost', hosted_repo: 'studio-test/tiny' };
  const catalog = { version: 1, date: '2026-11-22 10:00', categories: [{ id: 'checkpoints', name: 'Checkpoints', models: [entry] }] };
  fs.writeFileSync(path.join(catalogDir, 'models.json'), JSON.stringify(catalog, null, 2));
}

const shoot = (name: string) => saveScreenshot(page, name);

interface HistoryRow {
  prompt_id: string;
  status: string;
  retry_of?: string;
  seeds: Record<string, number>;
}

async function history(): Promise<HistoryRow[]> {
  return (await (await studio.api('/api/admin/history?limit=100')).json()) as HistoryRow[];
}

async function uploadedInput(): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([fs.readFileSync(IMAGE)], { type: 'image/png' }), 'image.png');
  const res = await studio.api('/api/run/upload-image', { method: 'POST', body: form });
  return ((await res.json()) as { filename: string }).filename;
}

async function executeViaApi(image: string, seed: number): Promise<string> {
  const form = new FormData();
  form.append('params', JSON.stringify({ image, seed, strength: 0.3, blur_radius: 3 }));
  const res = await studio.api('/api/run/image-filter/execute', { method: 'POST', body: form });
  expect(res.status).toBe(200);
  return ((await res.json()) as { prompt_id: string }).prompt_id;
}

async function waitForJobDone(label = 'Job progress'): Promise<void> {
  const bar = page.getByRole('progressbar', { name: label });
  await expect.poll(() => bar.getAttribute('aria-valuenow'), { timeout: 30_000 }).toBe('100');
  await expect.poll(() => page.getByRole('img', { name: 'Result image' }).evaluate((img: { complete: boolean; naturalWidth: number }) => img.complete && img.naturalWidth > 0), { timeout: 15_000 }).toBe(true);
}

describe('browser lookup', () => {
  it('fails with install instructions when no Chromium is found', () => {
    expect(() => findChromium(['/nonexistent/chromium'])).toThrow(/apt-get install -y chromium/);
  });
});

describe('Studio web UI', () => {
  beforeAll(async () => {
    ensureRendererBuilt();
    fake = await startFakeFileServer({ content: Buffer.alloc(MODEL_BYTES, 7), throttleBytesPerSec: 1024 * 1024 });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-e2e-'));
    writeTestCatalog(path.join(dir, 'catalogs'));
    studio = await startTestStudio({ dir, startEngine: true, env: { STANDIN_STEP_MS: '100', REPOHOST_BASE_URL: fake.url, MODELHUB_BASE_URL: fake.url } });
    await studio.studio.engineReady(60_000);
    browser = await launchBrowser();
    context = await browser.context(DESKTOP);
    page = await context.newPage();
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await studio?.stop();
    await fake?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('sends a visitor without a session to the login page and back to where they were going', async () => {
    await page.goto(`${studio.url}/jobs`);
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(new URL(page.url()).searchParams.get('next')).toBe('/jobs');
    await shoot('login-desktop');
    await page.getByLabel('API key').fill('wrong-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Invalid API key');
    await page.getByLabel('API key').fill(studio.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${studio.url}/jobs`);
    await page.getByRole('heading', { name: 'Queue & history' }).waitFor();
  });

  it('shows the workflows grouped by category with readiness, quickly', async () => {
    const started = performance.now();
    await page.goto(`${studio.url}/home`);
    await page.getByRole('article', { name: 'Image noise and blur' }).waitFor();
    const ms = performance.now() - started;
    const js = initialJsGzipBytes();
    console.log(`[measure] navigation to the home view showing workflows: ${ms.toFixed(0)} ms (target < 1000 ms)`);
    console.log(`[measure] initial JavaScript (gzip): ${(js.gzipBytes / 1024).toFixed(1)} KB in ${js.files.length} file(s) (target < 250 KB)`);
    expect(js.gzipBytes).toBeLessThan(250 * 1024);
    // Hashed assets are public (the login page may use them) and cached for good.
    const asset = await fetch(`${studio.url}${js.files[0]}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const card = page.getByRole('article', { name: 'Image noise and blur' });
    await expect.poll(() => card.textContent()).toContain('Ready');
    const wan = page.getByRole('article', { name: 'WAN 2.1 image to video (480p)' });
    await expect.poll(() => wan.textContent()).toContain('Not ready');
    expect(await wan.textContent()).toContain('wan2.1_i2v_480p_14B_fp8_e4m3fn.safetensors');
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Stand-in engine (no real generation)');
  });

  it('runs the no-weights workflow with an uploaded image to 100 % and shows the result', async () => {
    await page.goto(`${studio.url}/run/image-filter`);
    await page.getByLabel('Image', { exact: true }).setInputFiles(IMAGE);
    await page.getByText(/Uploaded as /).waitFor();
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.waitForURL(/job=/);
    await waitForJobDone();
    await expect.poll(() => page.getByText(/Last run used seed \d+/).count()).toBe(1);
    await shoot('run-desktop');
    const done = await history();
    expect(done.filter((j) => j.status === 'completed').length).toBeGreaterThanOrEqual(1);
  });

  it('keeps following a job across a page reload mid-run', async () => {
    const image = await uploadedInput();
    // Studio's queue is paused, so the job waits until the page has been reloaded, however busy
    // the machine (jobs ahead of it in the engine's queue once raced the reload on a loaded CI).
    expect((await studio.api('/api/admin/queue/pause', { method: 'POST' })).status).toBe(200);
    const second = await executeViaApi(image, 12);
    await page.goto(`${studio.url}/run/image-filter?job=${second}`);
    // The form shows that job's parameters, not the defaults.
    await expect.poll(() => page.getByLabel('Noise seed', { exact: true }).inputValue()).toBe('12');
    expect(await page.getByLabel('Random each run').isChecked()).toBe(false);
    const queued = (await (await studio.api('/api/admin/queue')).json()) as Array<{ prompt_id: string }>;
    expect(queued.map((j) => j.prompt_id)).toContain(second);
    await page.reload();
    await expect.poll(() => page.getByLabel('Noise seed', { exact: true }).inputValue()).toBe('12');
    expect((await studio.api('/api/admin/queue/resume', { method: 'POST' })).status).toBe(200);
    await waitForJobDone();
    expect((await history()).find((j) => j.prompt_id === second)?.status).toBe('completed');
  });

  it('retries a job from the history and opens the page of the new job', async () => {
    const before = await history();
    await page.goto(`${studio.url}/jobs`);
    const table = page.getByRole('table', { name: 'Job history' });
    await table.getByRole('row').nth(1).waitFor();
    await shoot('jobs-desktop');
    await table.getByRole('button', { name: /^Retry / }).first().click();
    await page.waitForURL(/\/jobs\/[0-9a-f-]{36}$/);
    const newId = new URL(page.url()).pathname.split('/').pop();
    // Same parameters and the same resolved seed as the job retried, shown on the job page.
    await expect.poll(() => page.getByRole('region', { name: 'Parameters' }).textContent(), { timeout: 15_000 }).toContain(String(before[0]!.seeds.seed));
    await page.getByRole('img', { name: 'Result image' }).waitFor({ timeout: 30_000 });
    const after = await history();
    expect(after.length).toBe(before.length + 1);
    expect(after.find((j) => j.prompt_id === newId)?.retry_of).toBe(before[0]!.prompt_id);
  });

  it('deletes a job after confirmation', async () => {
    const before = await history();
    await page.goto(`${studio.url}/jobs`);
    const table = page.getByRole('table', { name: 'Job history' });
    await expect.poll(() => table.getByRole('button', { name: /^Delete / }).count()).toBe(before.length);
    await table.getByRole('button', { name: /^Delete / }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Delete this job?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => table.getByRole('button', { name: /^Delete / }).count()).toBe(before.length - 1);
    const after = await history();
    expect(after.length).toBe(before.length - 1);
    expect(after.some((j) => j.prompt_id === before[0]!.prompt_id)).toBe(false);
  });

  it('downloads a model from the catalog and shows its bar moving', async () => {
    await page.goto(`${studio.url}/models`);
    await page.getByRole('button', { name: 'Download Tiny test model' }).click();
    const bar = page.getByRole('progressbar', { name: `Download of ${MODEL_FILE}` });
    const seen = new Set<number>();
    await expect
      .poll(
        async () => {
          const value = Number((await bar.getAttribute('aria-valuenow', { timeout: 1_000 }).catch(() => null)) ?? -1);
          if (value > 0 && value < 100) seen.add(value);
          return seen.size;
        },
        { timeout: 30_000, interval: 200 },
      )
      .toBeGreaterThanOrEqual(2);
    await shoot('models-downloading-desktop');
    const item = page.getByRole('article', { name: 'Tiny test model' });
    await expect.poll(() => item.textContent(), { timeout: 30_000 }).toContain('on disk');
    expect(fs.statSync(path.join(dir, 'models', 'checkpoints', MODEL_FILE)).size).toBe(MODEL_BYTES);
  });

  it('filters the event log by type and severity', async () => {
    await page.goto(`${studio.url}/events`);
    const log = page.getByRole('list', { name: 'Event log' });
    await expect.poll(() => log.getByRole('listitem').count()).toBeGreaterThan(3);
    await page.getByLabel('Event type').selectOption('job.completed');
    await expect.poll(async () => {
      const types = await log.locator('code').allTextContents();
      return types.length > 0 && types.every((t) => t === 'job.completed');
    }).toBe(true);
    await page.getByLabel('Event type').selectOption('');
    await page.getByRole('checkbox', { name: 'info' }).check();
    await expect.poll(async () => {
      const items = await log.getByRole('listitem').allTextContents();
      return items.length > 0 && items.every((t) => t.includes('info'));
    }).toBe(true);
    await shoot('events-desktop');
  });

  it('renders every page at desktop and phone width', async () => {
    const pages = ['home', 'run/image-filter', 'jobs', 'assets', 'assets?tab=outputs', 'models', 'events'];
    for (const [label, viewport] of [['desktop', { width: 1440, height: 900 }], ['phone', { width: 390, height: 844 }]] as const) {
      await resizeTo(page, viewport);
      for (const route of pages) {
        await page.goto(`${studio.url}/${route}`);
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        await page.waitForLoadState('networkidle').catch(() => undefined);
        await shoot(`${route.replace(/[/?=]/g, '-')}-${label}`);
      }
    }
    // On a phone the navigation is a drawer behind the menu button.
    expect(await page.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(false);
    await page.getByRole('button', { name: 'Menu' }).click();
    // The drawer shows one group at a time; Events is under Admin.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Admin' }).click();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Events' }).click();
    await page.waitForURL(`${studio.url}/events`);
    await resizeTo(page, { width: 1440, height: 900 });
  });
});
