/**
 * The home page (issue #30) in a real browser against a real Studio with the stand-in engine:
 * the workflow cards use the width of a wide screen and break long file names only at their
 * separators (defect 10); the first-run guide checks itself off from real state (improvement 13).
 * axe-core at desktop and phone width; screenshots under `artifacts/screenshots/` (or HOME_SHOTS).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../server/config.js';
import { launchBrowser, newSessionPage, type TestBrowser, resizeTo } from '../helpers/browser.js';
import { axeViolations, overflowing } from '../helpers/page-checks.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';
import { catalogOf, repoEntry, writeCatalogs } from '../helpers/fake-catalogs.js';
import { startFakeFileServer, type FakeFileServer } from '../helpers/fake-file-server.js';
import { fakeGpuPath, writeFakeGpuTools } from '../helpers/fake-gpu-tools.js';
import { execute, plantModels, uploadSample, waitForJob } from '../helpers/runner.js';
import { startStandinEngine, type StandinEngine } from '../../server/standin/standin.server.js';

const SHOTS = process.env.HOME_SHOTS ?? path.join(APP_ROOT, 'artifacts', 'screenshots');
const DESKTOP = { width: 1366, height: 900 };
const WIDE = { width: 1920, height: 1080 };
const PHONE = { width: 390, height: 844 };
const LONG_FILE = 'juggernautXL_ragnarokBy_v13RundiffusionPhoto2_fp16_pruned_emaonly.safetensors';

let studio: TestStudio;
let dir: string | undefined;
let browser: TestBrowser;

async function signedInPage(viewport: { width: number; height: number }): Promise<Page> {
  return (await newSessionPage(browser, studio, { viewport })).page;
}

/** Resize, and wait until the shell has switched to (or from) its phone layout: in between, the desktop navigation squeezes the content. */
async function resize(page: Page, viewport: { width: number; height: number }): Promise<void> {
  await resizeTo(page, viewport);
  await page.locator(viewport.width <= 760 ? '.shell.phone' : '.shell:not(.phone)').waitFor();
}

/** The page at a width: a full-page screenshot, and what is wrong with it (overflow on a phone, axe at every width). */
async function check(page: Page, name: string, viewport: { width: number; height: number }): Promise<string[]> {
  await resize(page, viewport);
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  return [...(viewport.width < 500 ? await overflowing(page) : []), ...(await axeViolations(page))];
}

/**
 * Where each shown file name wraps: for every line break inside a `.file` element, the characters
 * either side of it. Measured from the rendered glyph boxes, so CSS and `<wbr>` both count.
 */
function fileNameBreaks(page: Page): Promise<Array<{ file: string; before: string; after: string }>> {
  return page.evaluate(`(() => {
    const out = [];
    for (const el of Array.from(document.querySelectorAll('main .file'))) {
      const chars = [];
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (let i = 0; i < node.data.length; i++) {
          const range = document.createRange();
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          const box = range.getClientRects()[0];
          if (box) chars.push({ ch: node.data[i], top: Math.round(box.top) });
        }
      }
      for (let i = 1; i < chars.length; i++) {
        if (chars[i].top > chars[i - 1].top + 2) out.push({ file: el.textContent, before: chars[i - 1].ch, after: chars[i].ch });
      }
    }
    return out;
  })()`);
}

describe('Home page: workflow cards', () => {
  beforeAll(async () => {
    ensureRendererBuilt();
    // No model files, and one more workflow whose model has a name longer than a card is wide.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-home-e2e-'));
    const wf = path.join(dir, 'workflows', 'long-names');
    fs.cpSync(path.join(APP_ROOT, 'workflows', 'image-filter'), wf, { recursive: true });
    const manifest = fs.readFileSync(path.join(wf, 'manifest.yaml'), 'utf8');
    fs.writeFileSync(path.join(wf, 'manifest.yaml'), manifest.replace('id: image-filter', 'id: long-names').replace('name: Image noise and blur', 'name: Long names').replace('required_models: []', `required_models:\n  - ${LONG_FILE}`));
    studio = await startTestStudio({ dir });
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await studio?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('uses the width of a wide screen and breaks file names only at their separators', async () => {
    const page = await signedInPage(WIDE);
    await page.goto(`${studio.url}/home`);
    await page.getByRole('heading', { name: 'Long names' }).waitFor();
    const fill = await page.evaluate<{ content: number; cards: number }>(`(() => {
      const main = document.querySelector('main');
      const style = getComputedStyle(main);
      const right = main.getBoundingClientRect().right - parseFloat(style.paddingRight);
      const cards = Array.from(main.querySelectorAll('article.card')).map((c) => c.getBoundingClientRect().right);
      return { content: Math.round(right), cards: Math.round(Math.max(...cards)) };
    })()`);
    // Five workflows on a 1920 px screen: the first row of cards reaches the right edge of the content.
    expect(fill.cards).toBeGreaterThanOrEqual(fill.content - 2);
    expect(await check(page, 'home-cards-wide', WIDE)).toEqual([]);

    for (const viewport of [PHONE, DESKTOP]) {
      await resize(page, viewport);
      const breaks = await fileNameBreaks(page);
      expect(breaks.filter((b) => b.file === LONG_FILE).length, `${LONG_FILE} wraps at ${viewport.width} px`).toBeGreaterThan(0);
      // A line ends after a separator, or the next starts with the extension's dot.
      for (const b of breaks) expect(`${b.before}|${b.after}`, `${b.file} wraps between "${b.before}" and "${b.after}"`).toMatch(/^[_/\-\s]\||\|\.$/);
    }
    expect(await check(page, 'home-cards-phone', PHONE)).toEqual([]);
    expect(await check(page, 'home-cards-desktop', DESKTOP)).toEqual([]);
    await page.context().close();
  });
});

describe('Home page: first-run guide', () => {
  let origin: FakeFileServer;
  let page: Page;
  const step = (name: string) => page.getByRole('listitem').filter({ has: page.getByRole('heading', { name }) });

  beforeAll(async () => {
    ensureRendererBuilt();
    origin = await startFakeFileServer({ content: Buffer.alloc(1024, 7) });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-guide-e2e-'));
    // The shipped catalog's image checkpoints (sizes as shipped), served by a fake repository host.
    const image = (file: string, size_gb: number, tags: string[]) => repoEntry(file, { name: file.replace(/\.safetensors$/, ''), size_gb, tags: [...tags, 'image'] });
    writeCatalogs(dir, {
      models: catalogOf([image('sd_xl_base_1.0.safetensors', 6.94, ['sdxl', 'base']), image('v1-5-pruned-emaonly-fp16.safetensors', 2.13, ['sd15', 'base']), image('flux1-schnell-fp8.safetensors', 17.2, ['flux'])]),
      loras: catalogOf([], 'loras'),
    });
    // A Tesla T4 (15 GB): Flux does not fit, SDXL does and a shipped workflow uses it.
    const gpuPath = fakeGpuPath(writeFakeGpuTools(path.join(dir, 'gpu-tools'), { nvidia: 'nvidia-470-tesla-t4' }));
    studio = await startTestStudio({
      dir,
      startEngine: true,
      env: { STUDIO_HOST: '0.0.0.0', REPOHOST_BASE_URL: origin.url, PATH: `${gpuPath}:${process.env.PATH ?? '/usr/bin'}`, STUDIO_NVIDIA_SMI: 'nvidia-smi', STANDIN_STEP_MS: '20' },
    });
    await studio.studio.engineReady(60_000);
    browser = await launchBrowser();
    page = await signedInPage(DESKTOP);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await studio?.stop();
    await origin?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('checks its steps off from real state: engine, starter model, first job, phone', async () => {
    await page.goto(`${studio.url}/home`);
    const guide = page.getByRole('region', { name: 'Get started' });
    await guide.waitFor();
    await expect.poll(() => guide.textContent()).toMatch(/0 of 4 done/);

    // The stand-in engine is not the real one: the step links to the setup page.
    expect(await step('Set up the engine').textContent()).toMatch(/stand-in engine.*To do|To do.*stand-in engine/s);
    expect(await step('Set up the engine').getByRole('link', { name: 'Engine setup' }).getAttribute('href')).toBe('/setup');

    // The starter model for a 15 GB T4: SDXL base, its size shown, one click to download.
    const model = step('Get a starter model');
    await expect.poll(() => model.textContent()).toMatch(/sd_xl_base_1\.0 · 6\.46 GB.*workflow here uses that fits in 14\.\d+ GB of GPU memory \(Tesla T4\)/s);

    // The phone: this machine's LAN address as a link and a QR code (or why there is none).
    const lan = Object.values(os.networkInterfaces()).flatMap((list) => list ?? []).filter((n) => !n.internal && n.family === 'IPv4').map((n) => `http://${n.address}:${new URL(studio.url).port}`);
    const phone = step('Sign in from your phone');
    if (lan.length) {
      const qr = phone.getByRole('img', { name: /^QR code of / });
      expect(lan.map((url) => `QR code of ${url}`)).toContain(await qr.getAttribute('aria-label'));
      expect(lan).toContain(await phone.getByRole('link').first().textContent());
    } else {
      expect(await phone.textContent()).toMatch(/no network address/);
    }
    expect(await check(page, 'home-guide-desktop', DESKTOP)).toEqual([]);
    expect(await check(page, 'home-guide-wide', WIDE)).toEqual([]);
    expect(await check(page, 'home-guide-phone', PHONE)).toEqual([]);
    await resize(page, DESKTOP);

    await model.getByRole('button', { name: 'Download 6.46 GB' }).click();
    // The fake host serves 1 KB for the catalog's 6.94 GB: on disk, but not the model, so not done.
    const sdxlStatus = async () => ((await (await studio.api('/api/admin/models')).json()) as { categories: Array<{ models: Array<{ file: string; status: string }> }> }).categories.flatMap((c) => c.models).find((m) => m.file === 'sd_xl_base_1.0.safetensors')?.status;
    await expect.poll(sdxlStatus, { timeout: 30_000 }).toBe('incomplete');
    expect(await model.textContent()).not.toMatch(/Done/);
    // From here the catalog does not know the size, so the 1 KB file is the model for the rest of the story.
    await studio.studio.catalog.catalogs.models.update((draft) => {
      for (const entry of draft.categories.flatMap((c) => c.models)) if (entry.file === 'sd_xl_base_1.0.safetensors') entry.size_gb = 0;
    });
    await page.reload();
    await expect.poll(() => model.textContent(), { timeout: 30_000 }).toMatch(/sd_xl_base_1\.0 is on disk\.\s*$|is on disk/);
    expect(await model.textContent()).toMatch(/Done/);
    expect(fs.existsSync(path.join(dir!, 'models', 'checkpoints', 'sd_xl_base_1.0.safetensors'))).toBe(true);

    // The checkpoint made the SDXL workflow ready: the guide offers it, and a finished job ticks the step.
    const run = step('Run your first workflow');
    await expect.poll(() => run.getByRole('link', { name: 'Open SDXL text to image' }).count(), { timeout: 20_000 }).toBe(1);
    const { prompt_id } = await execute(studio.api, 'txt2img-sdxl', { params: { positive: 'a lighthouse', steps: 2 } });
    await waitForJob(studio.api, prompt_id, ['completed'], 60_000);
    await expect.poll(() => run.textContent(), { timeout: 20_000 }).toMatch(/Done.*A job has finished/s);

    // Studio cannot see this phone sign in (same machine): the user ticks it, and it is stored.
    await phone.getByRole('checkbox', { name: 'I have signed in on my phone' }).check();
    await expect.poll(() => phone.textContent()).toMatch(/Done/);
    await page.reload();
    await expect.poll(() => guide.textContent()).toMatch(/3 of 4 done/);
    await page.getByRole('heading', { name: 'SDXL text to image', exact: true }).waitFor();
    expect(await check(page, 'home-guide-3-done', DESKTOP)).toEqual([]);
  });

  it('can be hidden, stays hidden, and comes back from the System page', async () => {
    const guide = page.getByRole('region', { name: 'Get started' });
    await guide.getByRole('button', { name: 'Hide guide' }).click();
    await guide.waitFor({ state: 'detached' });
    await page.reload();
    await page.getByRole('heading', { name: 'SDXL text to image', exact: true }).waitFor();
    expect(await guide.count()).toBe(0);

    await page.goto(`${studio.url}/system`);
    await page.getByRole('button', { name: 'Show the first-run guide' }).click();
    await page.waitForURL(/\/home$/);
    await guide.waitFor();
    expect(await check(page, 'home-guide-reopened-phone', PHONE)).toEqual([]);
  });
});

describe('Home page: first-run guide on a set-up Studio', () => {
  let engine: StandinEngine;
  let page: Page;

  beforeAll(async () => {
    ensureRendererBuilt();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-guide-done-e2e-'));
    // An engine Studio does not run itself (external): what a user's own install looks like.
    engine = await startStandinEngine({ port: 0, inputDir: path.join(dir, 'assets', 'input'), outputDir: path.join(dir, 'assets', 'output'), tempDir: path.join(dir, 'engine', 'temp'), stepMs: 10, nodeMs: 10 });
    studio = await startTestStudio({ dir, startEngine: true, env: { ENGINE_MODE: 'external', ENGINE_PORT: String(engine.port) } });
    await studio.studio.engineReady(60_000);
    browser = await launchBrowser();
    page = await signedInPage(DESKTOP);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await studio?.stop();
    await engine?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('counts a real engine as set up, and stays away once every step is done until System brings it back', async () => {
    await page.goto(`${studio.url}/home`);
    const guide = page.getByRole('region', { name: 'Get started' });
    const engineStep = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Set up the engine' }) });
    await expect.poll(() => engineStep.textContent(), { timeout: 20_000 }).toMatch(/Done.*The real engine is running \(your own install\)/s);
    await expect.poll(() => guide.textContent()).toMatch(/1 of 4 done/);

    // The other three from real state: a checkpoint on disk, a finished job, the phone ticked.
    plantModels(dir!, { checkpoints: ['sd_xl_base_1.0.safetensors'] });
    // The planted file's catalog size is now unknown on disk; Studio read its catalog before.
    await studio.studio.catalog.reload();
    const image = await uploadSample(studio.api);
    const { prompt_id } = await execute(studio.api, 'image-filter', { params: { _existing_input_image: image } });
    await waitForJob(studio.api, prompt_id, ['completed'], 60_000);
    await studio.api('/api/admin/system/first-run', { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ticked: ['phone'] }) });
    await page.reload();
    await page.getByRole('heading', { name: 'SDXL text to image', exact: true }).waitFor();
    // Every step done: the guide is not shown (nothing else hides it: display is still automatic).
    await expect.poll(() => guide.count()).toBe(0);
    expect(((await (await studio.api('/api/admin/system/first-run')).json()) as { display: string }).display).toBe('auto');

    await page.goto(`${studio.url}/system`);
    await page.getByRole('button', { name: 'Show the first-run guide' }).click();
    await guide.waitFor();
    await expect.poll(() => guide.textContent()).toMatch(/4 of 4 done/);
    expect(await check(page, 'home-guide-all-done', DESKTOP)).toEqual([]);
  });
});
