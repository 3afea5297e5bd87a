/**
 * The Engines page and drag-to-reorder in the queue drawer, in a real browser against a real
 * Studio with a slow stand-in engine and a second stand-in added by URL from the page itself.
 * Screenshots at desktop and phone width; no sideways scrolling on the phone.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../server/contracts/jobs.contract.js';
import { openStudioPage, PHONE, saveScreenshot, type StudioPage, resizeTo } from '../helpers/browser.js';
import { overflowing } from '../helpers/page-checks.js';
import { execute, SHIPPED_MODELS } from '../helpers/runner.js';
import { startStandin, type StandinProcess } from '../helpers/standin-process.js';
import type { TestStudio } from '../helpers/studio.js';
import { until } from '../helpers/studio-ws.js';

let studio: TestStudio;
let remote: StandinProcess;
let ui: StudioPage;
let page: Page;

const queue = async () => (await (await studio.api('/api/admin/queue')).json()) as JobRecord[];
const waitingIds = async () => (await queue()).filter((j) => j.position !== null && j.position !== undefined).map((j) => j.prompt_id);

const shoot = (name: string) => saveScreenshot(page, name);

describe('the Engines page and dragging in the queue', () => {
  beforeAll(async () => {
    remote = await startStandin({ stepMs: 3000, models: { checkpoints: ['sd_xl_base_1.0.safetensors'] } });
    ui = await openStudioPage({ startEngine: true, models: SHIPPED_MODELS, env: { STANDIN_STEP_MS: '3000', STANDIN_NODE_MS: '20', ENGINE_POOL_PROBE_MS: '300' } });
    ({ studio, page } = ui);
  }, 120_000);

  afterAll(async () => {
    await ui?.close();
    await remote?.stop();
  });

  it('adds a remote engine from the page and shows each engine with its status', async () => {
    await page.goto(`${studio.url}/engines`);
    const cards = page.getByRole('list', { name: 'Engines' }).getByRole('listitem');
    await expect.poll(() => cards.count()).toBe(1);
    expect(await page.getByRole('note').filter({ hasText: 'no authentication' }).count()).toBe(1);
    await page.getByLabel('Name').fill('Second box');
    await page.getByLabel('URL').fill(remote.url);
    await page.getByRole('button', { name: 'Add engine' }).click();
    await expect.poll(() => cards.count()).toBe(2);
    await expect.poll(() => cards.nth(1).textContent(), { timeout: 15_000 }).toMatch(/Second box\s*online/);
    expect(await cards.nth(0).textContent()).toMatch(/This computer/);
    // The stand-in claims no GPU (issue 47): the same answer as the setup and LLM pages on this box.
    await expect.poll(() => cards.nth(0).textContent()).toMatch(/GPU\s*none: the stand-in engine has no GPU/);
    expect(await page.locator('body').textContent()).not.toMatch(/RTX|cuda:0/);
    await shoot('engines-desktop');
  });

  it('says on how many engines each workflow is ready', async () => {
    await page.goto(`${studio.url}/home`);
    const card = (name: RegExp) => page.getByRole('article').filter({ has: page.getByRole('heading', { name }) });
    await expect.poll(() => card(/SDXL text to image/).first().textContent(), { timeout: 15_000 }).toContain('Ready on 2 of 2 engines');
    // The remote engine has only the SDXL checkpoint: the video workflow runs on this computer alone.
    await expect.poll(() => card(/Wan/i).first().textContent()).toContain('Ready on 1 of 2 engines');
  });

  it('reorders waiting jobs by dragging one onto another', async () => {
    const ids: string[] = [];
    for (const prompt of ['a fox', 'a heron', 'a lynx', 'an owl', 'a wren', 'a crane']) ids.push((await execute(studio.api, 'txt2img-sdxl', { params: { positive: prompt, steps: 2 } })).prompt_id);
    // Two engines × (running + prefetched) hold four; two wait in Studio.
    await until(async () => (await waitingIds()).length === 2, 'two jobs waiting', 30_000);
    const [first, second] = await waitingIds();
    await page.getByRole('button', { name: /^Queue/ }).click();
    const drawer = page.getByRole('complementary', { name: 'Queue' });
    const items = drawer.getByRole('list', { name: 'Jobs in queue order' }).getByRole('listitem');
    await expect.poll(() => items.count()).toBe(6);
    await items.nth(5).dragTo(items.nth(4));
    await expect.poll(waitingIds).toEqual([second, first]);
    await shoot('queue-drawer-dragged-desktop');
    await drawer.getByRole('button', { name: 'Close the queue' }).click();
  });

  it('fits a phone', async () => {
    await resizeTo(page, PHONE);
    await page.goto(`${studio.url}/engines`);
    await expect.poll(() => page.getByRole('list', { name: 'Engines' }).getByRole('listitem').count()).toBe(2);
    expect(await overflowing(page)).toEqual([]);
    await shoot('engines-phone');
  });
});
