/**
 * The web UI's second pass (issue #17) in a real browser against a real Studio with the stand-in
 * engine: what a new user tripped on (overflow on a phone, a text file taken as an image, a stuck
 * retry button, times off by the zone, raw download errors, the progress below the fold, the
 * seed pinned by a reload, silence while Studio is gone, a stand-in that looks real, one-click
 * removal) and the generating pages (large preview and result, the job page, the results grid,
 * models with search and filters, install and notifications), with axe-core on every page.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../server/contracts/jobs.contract.js';
import { parseServerTime } from '../../server/contracts/wire-time.js';
import { DESKTOP, openSignedInPage, PHONE, saveScreenshot, type SignedInPage, resizeTo } from '../helpers/browser.js';
import { startFakeFileServer, type FakeFileServer } from '../helpers/fake-file-server.js';
import { axeViolations as pageAxeViolations, overflowing as pageOverflowing } from '../helpers/page-checks.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

const GOOD_MODEL = 'tiny-good.safetensors';
const BAD_MODEL = 'sd_xl_base_1.0.safetensors';

let studio: TestStudio;
let good: FakeFileServer;
let bad: FakeFileServer;
let ui: SignedInPage;
let page: Page;
let dir: string;
let stopped = false;
let landscape: string;
let textAsPng: string;

function writeCatalogs(catalogDir: string): void {
  fs.mkdirSync(catalogDir, { recursive: true });
  const entry = (name: string, file: string, extra: Record<string, unknown>) => ({ name, file, dest: 'checkpoints', size_gb: 6.94, base_model: 'SDXL 1.0', tags: ['test'], ...extra });
  const models = {
    version: 1,
    date: '2026-11-22 10:00',
    categories: [
      { id: 'checkpoints', name: 'Checkpoints', models: [entry('Tiny good model', GOOD_MODEL, { size_gb: 0.002, source: 'repohost', hosted_repo: 'studio-test/tiny' }), entry('SDXL base', BAD_MODEL, { source: 'modelhub', modelhub_version_id: '128078' })] },
      { id: 'embeddings', name: 'Embeddings', models: [{ name: 'Small embedding', file: 'small-embedding.pt', dest: 'embeddings', size_gb: 0.00003, base_model: 'SD 1.5', tags: [], source: 'repohost', hosted_repo: 'studio-test/emb' }] },
    ],
  };
  fs.writeFileSync(path.join(catalogDir, 'models.json'), JSON.stringify(models, null, 2));
}

const shoot = (name: string) => saveScreenshot(page, name);

/** axe-core's serious and critical violations on the page as it is now. */
function axeViolations(): Promise<string[]> {
  return pageAxeViolations(page);
}

/** Elements wider than the viewport, named so a failure says which. */
function overflowing(): Promise<string[]> {
  return pageOverflowing(page);
}

async function finishedJobs(): Promise<JobRecord[]> {
  return (await (await studio.api('/api/admin/history?limit=100')).json()) as JobRecord[];
}

async function waitForResult(): Promise<void> {
  const bar = page.getByRole('progressbar', { name: 'Job progress' });
  await expect.poll(() => bar.getAttribute('aria-valuenow'), { timeout: 30_000 }).toBe('100');
  await expect.poll(() => page.getByRole('img', { name: 'Result image' }).evaluate((img: { complete: boolean; naturalWidth: number }) => img.complete && img.naturalWidth > 0), { timeout: 15_000 }).toBe(true);
}

describe('Studio web UI: run, jobs, history, assets, models, events', () => {
  beforeAll(async () => {
    ensureRendererBuilt();
    good = await startFakeFileServer({ content: Buffer.alloc(2 * 1024 * 1024, 3) });
    bad = await startFakeFileServer({ content: Buffer.alloc(16), status: 404 });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-e2e2-'));
    writeCatalogs(path.join(dir, 'catalogs'));
    landscape = path.join(dir, 'landscape.png');
    await sharp({ create: { width: 1200, height: 400, channels: 3, background: { r: 40, g: 120, b: 200 } } }).png().toFile(landscape);
    textAsPng = path.join(dir, 'notes.png');
    fs.writeFileSync(textAsPng, 'this is a text file, not an image\n'.repeat(20));
    studio = await startTestStudio({ dir, startEngine: true, env: { STANDIN_STEP_MS: '150', REPOHOST_BASE_URL: good.url, MODELHUB_BASE_URL: bad.url } });
    await studio.studio.engineReady(60_000);
    // A zone far from the server's (Europe/Rome) so a time read in the wrong zone shows.
    ui = await openSignedInPage(studio, { timezoneId: 'Asia/Tokyo' });
    page = ui.page;
  });

  afterAll(async () => {
    await ui?.close();
    if (!stopped) await studio?.stop();
    await good?.close();
    await bad?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('says the engine is a stand-in, in the badge and on the result', async () => {
    await page.goto(`${studio.url}/home`);
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Stand-in engine (no real generation)');
    await page.goto(`${studio.url}/run/image-filter`);
    await page.getByLabel('Image', { exact: true }).setInputFiles(landscape);
    await page.getByText(/Uploaded as /).waitFor();
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await waitForResult();
    await expect.poll(() => page.getByRole('region', { name: 'Result', exact: true }).textContent()).toContain('Stand-in engine (no real generation)');
    await shoot('run-result-desktop');
  });

  it('refuses a text file named .png at the image field, and Run stays disabled', async () => {
    await page.goto(`${studio.url}/run/image-filter`);
    await page.getByLabel('Image', { exact: true }).setInputFiles(textAsPng);
    const field = page.getByRole('group', { name: 'Image' });
    await expect.poll(() => field.getByRole('alert').textContent().catch(() => ''), { timeout: 10_000 }).toMatch(/notes\.png was not accepted/);
    expect(await page.getByText(/Uploaded as /).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Run', exact: true }).isDisabled()).toBe(true);
    await shoot('run-bad-image-desktop');
  });

  it('keeps "random each run" on after a reload of a job that asked for a random seed', async () => {
    await page.goto(`${studio.url}/run/image-filter`);
    await page.getByLabel('Image', { exact: true }).setInputFiles(landscape);
    await page.getByText(/Uploaded as /).waitFor();
    expect(await page.getByLabel('Random each run').isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.waitForURL(/job=/);
    await waitForResult();
    await page.reload();
    await page.getByText(/Last run used seed \d+/).waitFor();
    expect(await page.getByLabel('Random each run').isChecked()).toBe(true);
    // While random is on the box shows no stale number.
    expect(await page.getByLabel('Noise seed', { exact: true }).inputValue()).toBe('');
  });

  it('brings the progress into view after Run on a phone', async () => {
    await resizeTo(page, PHONE);
    await page.goto(`${studio.url}/run/image-filter`);
    await page.getByLabel('Image', { exact: true }).setInputFiles(landscape);
    await page.getByText(/Uploaded as /).waitFor();
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const bar = page.getByRole('progressbar', { name: 'Job progress' });
    await bar.waitFor();
    await expect.poll(async () => {
      const box = await bar.boundingBox();
      return box !== null && box.y >= 0 && box.y + box.height <= PHONE.height;
    }, { timeout: 5_000 }).toBe(true);
    await shoot('run-running-phone');
    await waitForResult();
    await shoot('run-result-phone');
    await resizeTo(page, DESKTOP);
  });

  it('shows job times in the browser zone, converted from the server zone', async () => {
    const [job] = await finishedJobs();
    const at = parseServerTime(job!.finished_at, 'Europe/Rome')!;
    // One rule on every page: the time alone when it is today in the browser's zone, the day added otherwise.
    const tokyoDay = (d: Date) => d.toLocaleDateString('en-GB', { timeZone: 'Asia/Tokyo' });
    const today = tokyoDay(at) === tokyoDay(new Date());
    const expected = at.toLocaleString('en-GB', { timeZone: 'Asia/Tokyo', ...(today ? {} : { day: 'numeric', month: 'short' }), hour: '2-digit', minute: '2-digit' });
    await page.goto(`${studio.url}/jobs`);
    const table = page.getByRole('table', { name: 'Job history' });
    await table.getByRole('row').nth(1).waitFor();
    await expect.poll(() => table.getByRole('row').nth(1).textContent()).toContain(expected);
  });

  it('opens a page per job with result, parameters, seed, timings and actions', async () => {
    const [job] = await finishedJobs();
    await page.goto(`${studio.url}/jobs`);
    await page.getByRole('table', { name: 'Job history' }).getByRole('link', { name: 'Image noise and blur' }).first().click();
    await page.waitForURL(`${studio.url}/jobs/${job!.prompt_id}`);
    await page.getByRole('heading', { level: 1, name: 'Image noise and blur' }).waitFor();
    await page.getByRole('img', { name: 'Result image' }).waitFor();
    const params = page.getByRole('region', { name: 'Parameters' });
    await expect.poll(() => params.textContent()).toContain(String(job!.seeds.seed));
    expect(await page.getByRole('list', { name: 'Status history' }).textContent()).toMatch(/Queued.*Started.*Completed/s);
    await page.getByRole('button', { name: 'Zoom in' }).click();
    await expect.poll(() => page.getByRole('toolbar', { name: /Zoom/ }).textContent()).toContain('150 %');
    await page.getByRole('button', { name: 'Before / after' }).click();
    await page.getByRole('slider', { name: 'Before and after split' }).waitFor();
    await shoot('job-page-desktop');
    await resizeTo(page, PHONE);
    await shoot('job-page-phone');
    await resizeTo(page, DESKTOP);
    const before = (await finishedJobs()).length;
    await page.getByRole('button', { name: 'Run again with a new seed' }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/jobs/') && !url.pathname.endsWith(job!.prompt_id));
    await page.getByRole('img', { name: 'Result image' }).waitFor({ timeout: 30_000 });
    const after = await finishedJobs();
    expect(after.length).toBe(before + 1);
    expect(after[0]!.seeds.seed).not.toBe(job!.seeds.seed);
    await page.getByRole('link', { name: 'Edit and run' }).click();
    await page.waitForURL(/\/run\/image-filter\?from=/);
    await expect.poll(() => page.getByLabel('Noise strength', { exact: true }).inputValue()).toBe(String(after[0]!.params.strength));
  });

  it('shows history as a grid of results that link to their job pages', async () => {
    await page.goto(`${studio.url}/jobs?view=grid`);
    const grid = page.getByRole('list', { name: 'Results' });
    await expect.poll(() => grid.getByRole('listitem').count()).toBeGreaterThanOrEqual(3);
    await shoot('jobs-grid-desktop');
    await grid.getByRole('link').first().click();
    await page.waitForURL(/\/jobs\/[0-9a-f-]{36}$/);
  });

  it('lists job folders by workflow name and time, linked to the job page', async () => {
    await page.goto(`${studio.url}/assets?tab=outputs`);
    const first = page.locator('article.folder').first();
    await expect.poll(() => first.textContent()).toContain('Image noise and blur');
    expect(await first.getByRole('link', { name: 'Job page' }).count()).toBe(1);
    await first.getByRole('button', { name: 'Show files' }).click();
    await first.getByRole('button', { name: /^View / }).first().click();
    const viewer = page.getByRole('dialog');
    await viewer.getByRole('button', { name: 'Fit' }).waitFor();
    await viewer.getByRole('button', { name: 'Close' }).click();
  });

  it('says what a failed download means, and lets the workflow card retry it', async () => {
    await page.goto(`${studio.url}/home`);
    const card = page.getByRole('article', { name: 'SDXL text to image', exact: true });
    await card.getByRole('button', { name: 'Download missing models' }).click();
    await expect.poll(() => card.getByRole('alert').textContent().catch(() => ''), { timeout: 30_000 }).toContain('no longer at its address');
    await expect.poll(() => card.getByRole('button', { name: 'Download missing models' }).isEnabled(), { timeout: 5_000 }).toBe(true);
    await shoot('home-download-failed-desktop');
  });

  it('finds models by search and filters, in one size unit, and confirms removal in red', async () => {
    await page.goto(`${studio.url}/models`);
    const list = page.getByRole('list', { name: 'Model list' });
    await expect.poll(() => list.getByRole('article').count()).toBe(3);
    // 0.00003 GB is 30 kB, not "0 MB"; 6.94 GB (decimal) is 6.46 GB in the unit used everywhere.
    expect(await list.getByRole('article', { name: 'Small embedding' }).textContent()).toContain('29.3 KB');
    expect(await list.getByRole('article', { name: 'SDXL base' }).textContent()).toContain('6.46 GB');
    await page.getByRole('searchbox').fill('tiny');
    await expect.poll(() => list.getByRole('article').count()).toBe(1);
    await page.getByRole('searchbox').fill('');
    await page.getByLabel('Base model').selectOption('SD 1.5');
    await expect.poll(() => list.getByRole('article').count()).toBe(1);
    await page.getByLabel('Base model').selectOption('');
    await page.getByRole('combobox', { name: /^Status/ }).selectOption('error');
    await expect.poll(() => list.getByRole('article').count()).toBe(1);
    await page.getByRole('combobox', { name: /^Status/ }).selectOption('');
    await list.getByRole('button', { name: 'More actions for Small embedding' }).click();
    await page.getByRole('menuitem', { name: 'Remove from the catalog…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove from the catalog?' });
    await dialog.waitFor();
    const red = await dialog.getByRole('button', { name: 'Remove' }).evaluate<string, { ownerDocument: { defaultView: { getComputedStyle(e: unknown): { backgroundColor: string } } } }>((b) => b.ownerDocument.defaultView.getComputedStyle(b).backgroundColor);
    expect(red).toBe('rgb(214, 69, 69)');
    await shoot('models-remove-confirm-desktop');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await list.getByRole('article', { name: 'Small embedding' }).count()).toBe(1);
    // The control waits for the server's setting (2 by default) before it takes a choice.
    await expect.poll(() => page.getByLabel('Downloads at once').inputValue()).toBe('2');
    await page.getByLabel('Downloads at once').selectOption('3');
    await expect.poll(async () => ((await (await studio.api('/api/admin/settings')).json()) as { max_concurrent: number }).max_concurrent, { timeout: 10_000 }).toBe(3);
    await resizeTo(page, PHONE);
    await shoot('models-phone');
    expect(await overflowing()).toEqual([]);
    await resizeTo(page, DESKTOP);
  });

  it('opens events, names the workflow of job events and explains the severity filter', async () => {
    await page.goto(`${studio.url}/events`);
    await page.getByLabel('Event type').selectOption('job.completed');
    const log = page.getByRole('list', { name: 'Event log' });
    await expect.poll(() => log.getByRole('listitem').first().textContent()).toContain('Image noise and blur: Job completed in');
    expect(await page.getByText('none ticked: showing every severity').count()).toBe(1);
    await log.getByRole('listitem').first().locator('summary').click();
    await log.getByRole('link', { name: 'Open the job' }).first().waitFor();
    await shoot('events-open-desktop');
  });

  it('can be installed (manifest and icons) and notifies when a job ends in a hidden tab', async () => {
    await page.goto(`${studio.url}/home`);
    const href = await page.locator('link[rel="manifest"]').getAttribute('href');
    const manifest = (await (await fetch(`${studio.url}${href}`)).json()) as { name: string; start_url: string; display: string; icons: Array<{ src: string; sizes: string }> };
    expect(manifest).toMatchObject({ name: 'Studio', start_url: '/home', display: 'standalone' });
    for (const icon of manifest.icons) {
      const res = await fetch(`${studio.url}${icon.src}`);
      expect(res.status).toBe(200);
      expect((await sharp(Buffer.from(await res.arrayBuffer())).metadata()).width).toBe(Number(icon.sizes.split('x')[0]));
    }
    const notes = await ui.context.newPage();
    // A browser that granted notifications, in a tab the user has left.
    await notes.addInitScript(`
      const shown = [];
      window.shownNotes = shown;
      class FakeNotification {
        static permission = 'granted';
        static requestPermission() { return Promise.resolve('granted'); }
        constructor(title) { shown.push(title); this.onclick = null; }
        close() {}
      }
      Object.defineProperty(window, 'Notification', { value: FakeNotification });
      Object.defineProperty(document, 'visibilityState', { get: () => 'hidden' });
    `);
    await notes.goto(`${studio.url}/home`);
    await notes.getByLabel('Notify me when a job ends').check();
    const image = (await finishedJobs())[0]!.input_image!;
    const form = new FormData();
    form.append('params', JSON.stringify({ image, seed: 5 }));
    expect((await studio.api('/api/run/image-filter/execute', { method: 'POST', body: form })).status).toBe(200);
    await expect.poll(() => notes.evaluate<string[]>('window.shownNotes'), { timeout: 30_000 }).toContain('Image noise and blur finished');
    await notes.close();
  });

  it('says why a history row has no thumbnail once its job folder was deleted', async () => {
    const oldest = (await finishedJobs()).at(-1)!;
    const res = await studio.api('/api/admin/assets/delete', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ type: 'outputs', files: [oldest.output_dir] }) });
    expect(res.status).toBe(200);
    await page.goto(`${studio.url}/jobs?view=grid`);
    const grid = page.getByRole('list', { name: 'Results' });
    await expect.poll(() => grid.getByRole('img', { name: 'The files of this job were deleted.' }).count(), { timeout: 15_000 }).toBe(1);
  });

  it('fits every page on a phone and passes axe-core (no serious or critical issues) at both widths', async () => {
    const [job] = await finishedJobs();
    const pages = ['home', 'run/image-filter', 'run/txt2img-sdxl-lora', `run/image-filter?job=${job!.prompt_id}`, 'jobs', 'jobs?view=grid', `jobs/${job!.prompt_id}`, 'assets', 'assets?tab=outputs', 'models', 'events'];
    const problems: string[] = [];
    for (const [label, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
      await resizeTo(page, viewport);
      for (const route of pages) {
        await page.goto(`${studio.url}/${route}`);
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        await page.waitForLoadState('networkidle').catch(() => undefined);
        await shoot(`2-${route.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/, 'id').replace(/[/?=]/g, '-')}-${label}`);
        if (label === 'phone') for (const o of await overflowing()) problems.push(`${route} (${label}): ${o}`);
        for (const v of await axeViolations()) problems.push(`${route} (${label}): ${v}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('reaches every action by keyboard on the job page', async () => {
    const [job] = await finishedJobs();
    await page.goto(`${studio.url}/jobs/${job!.prompt_id}`);
    await page.getByRole('button', { name: 'Run again', exact: true }).waitFor();
    const reached = new Set<string>();
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press('Tab');
      const name = await page.evaluate<string>("(document.activeElement?.textContent ?? '').trim()");
      reached.add(name);
    }
    for (const action of ['Run again', 'Run again with a new seed', 'Edit and run', 'Make a preset', 'Download ZIP', 'Delete']) expect([...reached]).toContain(action);
  });

  it('reaches every control by keyboard on every page', async () => {
    const [job] = await finishedJobs();
    const missed: string[] = [];
    for (const route of ['home', 'run/image-filter', 'jobs', `jobs/${job!.prompt_id}`, 'assets?tab=outputs', 'models', 'events']) {
      await page.goto(`${studio.url}/${route}`);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await page.waitForLoadState('networkidle').catch(() => undefined);
      // Mark every control a user could act on (visible, enabled, not deliberately out of the tab order).
      const total = await page.evaluate<number>(`(() => {
        const all = Array.from(document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex="0"]'));
        let n = 0;
        for (const el of all) {
          if (el.disabled || el.getAttribute('tabindex') === '-1' || el.closest('dialog:not([open])')) continue;
          // Inside a closed disclosure: reached once its summary (which is counted) opens it.
          if (el.tagName !== 'SUMMARY' && el.closest('details:not([open])')) continue;
          const box = el.getBoundingClientRect();
          const hiddenFile = el.type === 'file';
          if (!hiddenFile && (box.width === 0 || box.height === 0)) continue;
          el.setAttribute('data-kbd', String(n++));
        }
        return n;
      })()`);
      const reached = new Set<string>();
      await page.locator('body').focus();
      for (let i = 0; i < total + 15; i++) {
        await page.keyboard.press('Tab');
        const mark = await page.evaluate<string | null>("document.activeElement?.getAttribute('data-kbd') ?? null");
        if (mark !== null) reached.add(mark);
      }
      if (reached.size < total) {
        const names = await page.evaluate<string[]>(`Array.from(document.querySelectorAll('[data-kbd]')).filter((el) => !${JSON.stringify([...reached])}.includes(el.getAttribute('data-kbd'))).map((el) => el.tagName + ' ' + (el.getAttribute('aria-label') || el.textContent || '').trim().slice(0, 40))`);
        missed.push(`${route}: ${names.join('; ')}`);
      }
    }
    expect(missed).toEqual([]);
  });

  it('says Studio is unreachable, marks what is shown as stale and explains a dead link', async () => {
    await page.goto(`${studio.url}/home`);
    await page.getByRole('article', { name: 'Image noise and blur' }).waitFor();
    stopped = true;
    await studio.stop();
    const banner = page.getByRole('alert').filter({ hasText: 'Studio is unreachable' });
    await banner.waitFor({ timeout: 15_000 });
    expect(await banner.textContent()).toContain('may be out of date');
    await shoot('unreachable-desktop');
    // A click while Studio is gone does not look ignored: the banner stays and says why.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Models & LoRAs' }).click();
    await page.waitForTimeout(500);
    expect(await banner.isVisible()).toBe(true);
  });
});
