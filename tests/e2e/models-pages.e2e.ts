/**
 * The models side of the web UI's third pass (issue #30) in a real browser against a real Studio
 * with the stand-in engine, a fake model hub, a throttled file host and a fake chat platform:
 * the hub's "Add to catalog" (defect 5), the chat bot's state (defect 7), the smaller defects of
 * the models, LLM, gallery, hub and nodes pages (10), and the downloads tray with "used by these
 * workflows" (improvement 12). Each page is checked with axe-core at desktop and phone width, for
 * sideways scrolling on the phone, and photographed at both widths.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../server/config.js';
import { openSignedInPage, type SignedInPage, resizeTo } from '../helpers/browser.js';
import { catalogOf, hubEntry, repoEntry, writeCatalogs } from '../helpers/fake-catalogs.js';
import { startFakeChatPlatform, type FakeChatPlatform } from '../helpers/fake-chat-platform.js';
import { startFakeFileServer, type FakeFileServer } from '../helpers/fake-file-server.js';
import { seedGallery, testImage } from '../helpers/fake-gallery.js';
import { RICH_IMAGE, seedHub } from '../helpers/fake-hub-data.js';
import { startFakeHub, type FakeHub } from '../helpers/fake-hub-server.js';
import { axeViolations, overflowing } from '../helpers/page-checks.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';
import { plantModels, SHIPPED_MODELS } from '../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

const SHOTS = process.env.STUDIO_SHOTS_DIR ?? path.join(APP_ROOT, 'artifacts', 'screenshots', 'models-pages');
const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };
// Slow enough that a download is still running while the page is looked at; it is cancelled after.
const SLOW = Buffer.alloc(24 * 1024 * 1024, 7);

let studio: TestStudio;
let hub: FakeHub;
let host: FakeFileServer;
let platform: FakeChatPlatform;
let ui: SignedInPage;
let page: Page;
let dir: string;

async function json<T>(pathname: string): Promise<T> {
  const res = await studio.api(pathname);
  if (!res.ok) throw new Error(`${pathname}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

function files(catalog: { categories: Array<{ models: Array<{ file: string }> }> }): string[] {
  return catalog.categories.flatMap((c) => c.models.map((m) => m.file));
}

/** axe-core at both widths, nothing wider than the phone, and a screenshot at each width. */
async function check(name: string): Promise<void> {
  fs.mkdirSync(SHOTS, { recursive: true });
  await resizeTo(page, DESKTOP);
  // From the top: a full-page shot of a scrolled page draws the sticky bar halfway down.
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: path.join(SHOTS, `${name}-desktop.png`), fullPage: true });
  const desktop = await axeViolations(page);
  await resizeTo(page, PHONE);
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: path.join(SHOTS, `${name}-phone.png`), fullPage: true });
  const phone = [...(await overflowing(page)), ...(await axeViolations(page))];
  await resizeTo(page, DESKTOP);
  expect({ desktop, phone }, name).toEqual({ desktop: [], phone: [] });
}

beforeAll(async () => {
  ensureRendererBuilt();
  hub = await startFakeHub();
  seedHub(hub);
  hub.media.set('5001.jpeg', { body: await testImage('jpeg', '#c63', 96, 64), type: 'image/jpeg' });
  hub.images.set(5001, { ...RICH_IMAGE, url: `${hub.url}/media/5001.jpeg` });
  await seedGallery(hub, APP_ROOT);
  host = await startFakeFileServer({ content: SLOW, throttleBytesPerSec: 48 * 1024 });
  platform = await startFakeChatPlatform();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-models-e2e-'));
  writeCatalogs(dir, {
    models: catalogOf([
      repoEntry('sd_xl_base_1.0.safetensors', { name: 'SDXL base', base_model: 'SDXL 1.0' }),
      repoEntry('slow.safetensors', { name: 'Slow model', size_gb: SLOW.length / 1e9 }),
      hubEntry('gone.safetensors', '555', { name: 'Gone model', dest: 'checkpoints' }),
      // A LoRA an earlier add left in the models catalog.
      hubEntry('grain.safetensors', '999', { name: 'Film Grain v1', dest: 'loras' }),
    ]),
    loras: catalogOf([], 'loras'),
    llm: catalogOf([repoEntry('slow-chat.gguf', { name: 'Slow chat model', dest: '.', size_gb: SLOW.length / 1e9 })], 'small'),
  });
  studio = await startTestStudio({
    dir,
    startEngine: true,
    env: { MODELHUB_BASE_URL: hub.url, REPOHOST_BASE_URL: host.url, GALLERY_PAGE_DELAY_MS: '0', CHATBOT_API_BASE_URL: platform.url, STANDIN_STEP_MS: '20' },
  });
  await studio.studio.engineReady(60_000);
  plantModels(dir, { checkpoints: SHIPPED_MODELS.checkpoints });
  ui = await openSignedInPage(studio, { viewport: DESKTOP });
  page = ui.page;
  page.setDefaultTimeout(30_000);
}, 180_000);

afterAll(async () => {
  await ui?.close();
  await studio?.stop();
  await hub?.close();
  await host?.close();
  await platform?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('Model hub (defect 5, and its field labels from 10)', () => {
  it('after "Add to catalog" says which catalog holds it, offers Download, and puts a LoRA under LoRAs', async () => {
    await page.goto(`${studio.url}/modelhub`);
    await page.getByLabel('Image id or model hub image link').fill('5001');
    await page.getByRole('button', { name: 'Look up' }).click();
    const resources = page.getByRole('region', { name: 'Resources' });
    const lora = resources.getByRole('listitem', { name: 'Detail Tweaker' });
    await lora.getByRole('button', { name: 'Add to catalog' }).click();
    await lora.getByText('in LoRAs', { exact: true }).waitFor();
    expect(await lora.getByText('not in the catalog').count()).toBe(0);
    await lora.getByRole('button', { name: 'Download Detail Tweaker' }).waitFor();
    // Server side: the LoRA is in loras.json, not in models.json.
    expect(files(await json('/api/admin/loras'))).toContain('add_detail.safetensors');
    expect(files(await json('/api/admin/models'))).not.toContain('add_detail.safetensors');
    // The LoRA tag in the prompt names the same file: it is catalogued now too.
    await page.getByRole('listitem', { name: 'add_detail' }).getByText('in LoRAs', { exact: true }).waitFor();

    const checkpoint = resources.getByRole('listitem', { name: 'Juggernaut XL' });
    await checkpoint.getByRole('button', { name: 'Add to catalog' }).click();
    await checkpoint.getByText('in Models', { exact: true }).waitFor();
    await checkpoint.getByRole('button', { name: 'Download Juggernaut XL' }).waitFor();

    const left = resources.getByRole('listitem', { name: 'Film Grain' });
    await left.getByText('in Models', { exact: true }).waitFor();
    await left.getByRole('button', { name: 'Move to LoRAs' }).click();
    await left.getByText('in LoRAs', { exact: true }).waitFor();
    expect(files(await json('/api/admin/loras'))).toContain('grain.safetensors');

    // Generation data under plain labels, not the hub's keys.
    const image = page.getByRole('region', { name: 'Image 5001' });
    await image.getByText('CFG scale', { exact: true }).waitFor();
    expect(await image.getByText('cfgScale').count()).toBe(0);
    await check('modelhub-added');

    await page.goto(`${studio.url}/models`);
    await page.getByRole('tab', { name: 'LoRAs' }).click();
    const listed = page.getByRole('list', { name: 'LoRA list' }).getByRole('article', { name: /^Detail Tweaker/ });
    await listed.waitFor();
    // A LoRA is picked on a form, never required: no "No workflow needs it" on it.
    expect(await listed.getByText('No workflow needs it').count()).toBe(0);
  });
});

describe('Chat bot (defect 7)', () => {
  it('drops the stale "no token configured" once a token is saved, and Stop is the one action while it runs', async () => {
    await page.goto(`${studio.url}/chatbot`);
    const state = page.getByRole('status', { name: 'Chat bot state' });
    await expect.poll(() => state.textContent()).toBe('stopped');
    await page.getByRole('button', { name: 'Start' }).click();
    const last = page.getByRole('status', { name: 'Last action' });
    await expect.poll(() => last.textContent()).toContain('no token configured');
    await page.getByRole('button', { name: 'Edit Bot token' }).click();
    await page.getByLabel('New Bot token').fill(platform.token);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByLabel('Bot token', { exact: true }).textContent()).not.toBe('(not set)');
    expect(await page.getByText('no token configured').count()).toBe(0);

    await page.getByRole('button', { name: 'Start' }).click();
    await expect.poll(() => state.textContent()).toBe('running');
    await page.getByRole('button', { name: 'Stop' }).waitFor();
    expect(await page.getByRole('button', { name: 'Start' }).count()).toBe(0);
    await check('chatbot-running');
    await page.getByRole('button', { name: 'Stop' }).click();
    await expect.poll(() => state.textContent()).toBe('stopped');
    await page.getByRole('button', { name: 'Start' }).waitFor();
  });
});

describe('Downloads tray and the models page (improvement 12, and the rows of 10)', () => {
  it('shows active downloads with speed and time left and failures with their reason, on any page', async () => {
    await page.goto(`${studio.url}/models`);
    await page.getByRole('button', { name: 'Download Slow model' }).click();
    await page.getByRole('button', { name: 'Download Gone model' }).click();
    await page.getByRole('article', { name: 'Gone model' }).getByRole('alert').waitFor({ timeout: 30_000 });

    await page.goto(`${studio.url}/chatbot`);
    const toggle = page.getByRole('button', { name: /^Downloads\W+1 active\W+1 failed$/ });
    await toggle.click();
    const tray = page.getByRole('region', { name: 'Downloads' });
    const active = tray.getByRole('list', { name: 'Active downloads' }).getByRole('listitem', { name: 'Slow model' });
    await expect.poll(() => active.textContent(), { timeout: 20_000 }).toMatch(/ of [\d.]+ MB · [\d.]+ [KM]B\/s · \d+.* left/);
    const failed = tray.getByRole('list', { name: 'Failed downloads' }).getByRole('listitem', { name: 'Gone model' });
    await failed.getByText(/Reason: .*404/).waitFor();
    await failed.getByRole('button', { name: 'Retry Gone model' }).waitFor();
    await check('downloads-tray');
    await page.keyboard.press('Escape');
    await expect.poll(() => tray.isVisible()).toBe(false);
  });

  it('names the workflows that use each model, keeps Remove in a row menu, and has one "Downloads at once" control', async () => {
    await page.goto(`${studio.url}/models`);
    const list = page.getByRole('list', { name: 'Model list' });
    const sdxl = list.getByRole('article', { name: 'SDXL base' });
    await sdxl.getByRole('link', { name: 'SDXL text to image', exact: true }).waitFor();
    expect(await sdxl.getByRole('link', { name: 'SDXL text to image with LoRAs' }).getAttribute('href')).toBe('/run/txt2img-sdxl-lora');
    await list.getByRole('article', { name: 'Gone model' }).getByText('No workflow needs it').waitFor();

    // No red "Remove…" on the rows: it sits in each row's menu.
    expect(await list.getByRole('button', { name: /^Remove .* from the catalog$/ }).count()).toBe(0);
    await list.getByRole('button', { name: 'More actions for Gone model' }).click();
    await page.getByRole('menuitem', { name: 'Remove from the catalog…' }).waitFor();
    await check('models-row-menu');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('menu').count()).toBe(0);

    // One control, here where downloads are watched: the System page has none.
    const models = page.getByRole('combobox', { name: 'Downloads at once' });
    await expect.poll(() => models.inputValue()).toBe('2');
    await models.selectOption('4');
    await expect.poll(async () => (await json<{ max_concurrent: number }>('/api/admin/settings')).max_concurrent).toBe(4);
    await page.goto(`${studio.url}/system`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(await page.getByRole('combobox', { name: 'Downloads at once' }).count()).toBe(0);
    await page.goto(`${studio.url}/models`);
    await expect.poll(() => page.getByRole('combobox', { name: 'Downloads at once' }).inputValue()).toBe('4');
    await check('models');
  });
});

describe('LLM model rows (10)', () => {
  it('keeps each row in place while its download starts and runs', async () => {
    await page.goto(`${studio.url}/llm`);
    const row = page.getByRole('listitem', { name: 'Slow chat model' });
    const action = row.getByRole('button', { name: /Slow chat model$/ });
    await action.waitFor();
    const name = row.getByText('Slow chat model', { exact: true });
    // Where the name and the action sit inside the row (the page above may still be loading and move the row as a whole):
    // all three boxes read in one snapshot in the page, so a row that moves between readings cannot skew them.
    const layout = async () => {
      const handles = await Promise.all([row.elementHandle(), action.elementHandle(), name.elementHandle()]);
      return page.evaluate(([r, a, n]) => {
        const [rb, ab, nb] = [r, a, n].map((el) => el!.getBoundingClientRect());
        return { action: { x: ab!.x - rb!.x, y: ab!.y - rb!.y, width: ab!.width }, name: { x: nb!.x - rb!.x, y: nb!.y - rb!.y, width: nb!.width } };
      }, handles);
    };
    // Settled first: two readings in a row agree.
    let before = await layout();
    await expect.poll(async () => {
      const now = await layout();
      const same = JSON.stringify(now) === JSON.stringify(before);
      before = now;
      return same;
    }).toBe(true);
    await row.getByRole('button', { name: 'Download Slow chat model' }).click();
    await row.getByRole('progressbar').waitFor();
    await row.getByRole('button', { name: 'Downloading Slow chat model' }).waitFor();
    // The name and the action slot stay where they were; only the bar is added below.
    expect(await layout()).toEqual(before);
    await check('llm-downloading');
    await studio.api('/api/admin/llm/models/slow-chat.gguf', { method: 'DELETE' });
  });
});

describe('Gallery (10)', () => {
  it('names the model, explains an item in words, and says when a fetch ended', async () => {
    await page.goto(`${studio.url}/gallery/12`);
    const title = page.getByRole('heading', { level: 1 });
    await expect.poll(() => title.textContent()).toContain('Detail Tweaker');
    expect(await title.textContent()).not.toContain('model 12');
    await page.getByRole('button', { name: 'Fetch more from the hub' }).click();
    await expect.poll(() => page.getByRole('figure').count(), { timeout: 30_000 }).toBe(6);
    await page.getByText(/^Fetched \d+ new items?/).waitFor();
    expect(await page.getByText('Fetching from the model hub').count()).toBe(0);

    await page.getByRole('button', { name: 'Info on 8001' }).click();
    const info = page.getByRole('dialog', { name: 'Metadata of 8001' });
    await info.getByRole('heading', { name: 'Prompt' }).waitFor();
    await info.getByText('a fox <lora:add_detail:0.5>', { exact: true }).waitFor();
    await info.getByText('Seed', { exact: true }).waitFor();
    // The raw record is there for the curious, folded away.
    expect(await info.locator('pre').isVisible()).toBe(false);
    await check('gallery-info');
    await info.getByRole('button', { name: 'Close' }).click();
    await check('gallery');
  });
});

describe('Node packages (10)', () => {
  it('shows the whole search placeholder at both widths', async () => {
    await page.goto(`${studio.url}/nodes`);
    const list = page.getByRole('region', { name: /^Installed/ });
    await list.getByText('Engine Core').waitFor();
    const search = list.getByLabel('Search packages and nodes');
    for (const viewport of [DESKTOP, PHONE]) {
      await resizeTo(page, viewport);
      // The placeholder's width in the input's own font, against the room the input gives it.
      const room = await search.evaluate<{ text: number; box: number }, HTMLInputElementLike>((input) => {
        const style = input.ownerDocument.defaultView.getComputedStyle(input);
        const ctx = input.ownerDocument.createElement('canvas').getContext('2d');
        ctx.font = style.font;
        return { text: ctx.measureText(input.placeholder).width, box: input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) };
      });
      expect(room.text, `placeholder at ${viewport.width}px`).toBeLessThanOrEqual(room.box);
    }
    await resizeTo(page, DESKTOP);
    await check('nodes');
  });
});

/** The DOM an input needs here (this project's TypeScript has no DOM types outside the renderer). */
interface HTMLInputElementLike {
  placeholder: string;
  clientWidth: number;
  ownerDocument: {
    defaultView: { getComputedStyle(e: unknown): { font: string; paddingLeft: string; paddingRight: string } };
    createElement(tag: 'canvas'): { getContext(kind: '2d'): { font: string; measureText(text: string): { width: number } } };
  };
}
