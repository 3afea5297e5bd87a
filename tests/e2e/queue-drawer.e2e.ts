/**
 * The queue drawer in a real browser against a real Studio with a slow stand-in engine: reachable
 * from any page, it lists the running and waiting jobs in Studio's order, moves a waiting job,
 * pauses and resumes, clears what waits and retries all stalled; the job page cancels a running
 * job. Screenshots at desktop and phone width; no sideways scrolling on the phone.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../server/contracts/jobs.contract.js';
import type { QueueState } from '../../server/contracts/queue.contract.js';
import { openStudioPage, PHONE, saveScreenshot, type StudioPage, resizeTo } from '../helpers/browser.js';
import { overflowing } from '../helpers/page-checks.js';
import { execute, SHIPPED_MODELS } from '../helpers/runner.js';
import type { TestStudio } from '../helpers/studio.js';
import { until } from '../helpers/studio-ws.js';

let studio: TestStudio;
let ui: StudioPage;
let page: Page;
const ids: string[] = [];

const queue = async () => (await (await studio.api('/api/admin/queue')).json()) as JobRecord[];
const state = async () => (await (await studio.api('/api/admin/queue/state')).json()) as QueueState;

const shoot = (name: string) => saveScreenshot(page, name, { fullPage: false });

describe('the queue drawer', () => {
  beforeAll(async () => {
    // 10 sampler steps of 3 s: the first job runs for half a minute while the drawer is used.
    ui = await openStudioPage({ startEngine: true, models: SHIPPED_MODELS, env: { STANDIN_STEP_MS: '3000', STANDIN_NODE_MS: '20' } });
    ({ studio, page } = ui);
    for (const prompt of ['a fox', 'a heron', 'a lynx', 'an owl']) ids.push((await execute(studio.api, 'txt2img-sdxl', { params: { positive: prompt, steps: 2 } })).prompt_id);
    await until(async () => (await state()).engines[0]?.prefetched.length === 1, 'a job prefetched on the engine', 30_000);
  }, 120_000);

  afterAll(async () => {
    await ui?.close();
  });

  it('opens from any page and lists the jobs in queue order', async () => {
    await page.goto(`${studio.url}/models`);
    await page.getByRole('button', { name: /^Queue/ }).click();
    const drawer = page.getByRole('complementary', { name: 'Queue' });
    const items = drawer.getByRole('list', { name: 'Jobs in queue order' }).getByRole('listitem');
    await expect.poll(() => items.count()).toBe(4);
    await expect.poll(() => items.nth(0).textContent()).toMatch(/Running/);
    expect(await items.nth(1).textContent()).toMatch(/Next on the engine/);
    expect(await items.nth(2).textContent()).toMatch(/Waiting · #1/);
    expect(await items.nth(3).textContent()).toMatch(/Waiting · #2/);
    // The first waiting job cannot go up, the last cannot go down; jobs on the engine have no arrows.
    expect(await items.nth(2).getByRole('button', { name: /up$/ }).isDisabled()).toBe(true);
    expect(await items.nth(3).getByRole('button', { name: /down$/ }).isDisabled()).toBe(true);
    expect(await items.nth(0).getByRole('button', { name: /up$/ }).count()).toBe(0);
    await shoot('queue-drawer-desktop');
  });

  it('moves a waiting job down, pauses and resumes', async () => {
    const drawer = page.getByRole('complementary', { name: 'Queue' });
    const items = drawer.getByRole('listitem');
    await items.nth(2).getByRole('button', { name: /down$/ }).click();
    await expect.poll(async () => (await queue()).filter((j) => j.position !== null).map((j) => j.prompt_id)).toEqual([ids[3], ids[2]]);
    await drawer.getByRole('button', { name: 'Pause', exact: true }).click();
    await expect.poll(async () => (await state()).paused).toBe(true);
    await expect.poll(() => drawer.getByText('Paused', { exact: true }).count()).toBe(1);
    await drawer.getByRole('button', { name: 'Resume', exact: true }).click();
    await expect.poll(async () => (await state()).paused).toBe(false);
  });

  it('tells jobs of one workflow apart by prompt, seed and time; Escape closes the drawer (#47 point 3)', async () => {
    const drawer = page.getByRole('complementary', { name: 'Queue' });
    const links = drawer.getByRole('list', { name: 'Jobs in queue order' }).getByRole('link');
    const names = await links.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
    expect(new Set(names).size).toBe(4);
    expect(names[0]).toMatch(/^SDXL text to image, “a fox” · seed \d+ · queued \d/);
    expect(await drawer.getByRole('button', { name: /^Cancel SDXL text to image, “an owl”/ }).count()).toBe(1);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('complementary', { name: 'Queue' }).count()).toBe(0);
  });

  it('says a paused queue where a waiting job is shown: the Run panel and the Queue page, each with Resume (#47 point 3)', async () => {
    expect((await studio.api('/api/admin/queue/pause', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })).status).toBe(200);
    await page.goto(`${studio.url}/run/txt2img-sdxl?job=${ids[2]}`);
    const stage = page.getByRole('region', { name: 'Job' });
    await stage.getByText('Waiting — the queue is paused').waitFor();
    expect(await stage.getByRole('button', { name: 'Resume' }).isVisible()).toBe(true);
    await shoot('run-waiting-paused-desktop');
    await page.goto(`${studio.url}/jobs`);
    const section = page.getByRole('region', { name: 'Running and queued' });
    await section.getByText('The queue is paused').waitFor();
    // The header's Queue button says so too, on every page.
    await page.getByRole('banner').getByRole('button', { name: /^Queue/ }).getByLabel('paused').waitFor();
    // The drawer's controls on the Queue page: cancel, reorder, clear, resume.
    await expect.poll(() => section.getByRole('button', { name: /^Cancel SDXL text to image, “a lynx”/ }).count()).toBe(1);
    expect(await section.getByRole('button', { name: /^Move SDXL text to image, “an owl”.* down$/ }).count()).toBe(1);
    expect(await section.getByRole('button', { name: 'Clear waiting' }).isEnabled()).toBe(true);
    await saveScreenshot(page, 'queue-page-paused-desktop');
    await resizeTo(page, PHONE);
    expect(await overflowing(page)).toEqual([]);
    await saveScreenshot(page, 'queue-page-paused-phone');
    await resizeTo(page, { width: 1366, height: 900 });
    await section.getByRole('button', { name: 'Resume', exact: true }).click();
    await expect.poll(async () => (await state()).paused).toBe(false);
    await expect.poll(() => section.getByText('The queue is paused').count()).toBe(0);
    await expect.poll(() => page.getByRole('banner').getByLabel('paused').count()).toBe(0);
    await page.getByRole('button', { name: /^Queue/ }).click();
  });

  it('clears what waits, after asking, and retries all stalled', async () => {
    const drawer = page.getByRole('complementary', { name: 'Queue' });
    await drawer.getByRole('button', { name: 'Clear waiting' }).click();
    await page.getByRole('dialog', { name: 'Clear the waiting jobs?' }).getByRole('button', { name: 'Clear waiting' }).click();
    await expect.poll(async () => (await queue()).length).toBe(2);
    for (const id of [ids[2], ids[3]]) expect(studio.studio.jobs.get(id!)?.status).toBe('cancelled');
    await drawer.getByRole('button', { name: 'Retry all stalled' }).click();
    await expect.poll(() => page.getByText('No stalled job to retry').count()).toBeGreaterThan(0);
  });

  it('cancels the running job from its page', async () => {
    await page.goto(`${studio.url}/jobs/${ids[0]}`);
    await page.getByRole('button', { name: 'Cancel job' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Cancelled.' }).count()).toBe(1);
    expect(studio.studio.jobs.get(ids[0]!)?.status).toBe('cancelled');
    await shoot('job-cancelled-desktop');
  });

  it('fits a phone', async () => {
    await resizeTo(page, PHONE);
    await page.goto(`${studio.url}/home`);
    await page.getByRole('button', { name: /^Queue/ }).click();
    const drawer = page.getByRole('complementary', { name: 'Queue' });
    await expect.poll(() => drawer.getByRole('list', { name: 'Jobs in queue order' }).getByRole('listitem').count()).toBe(1);
    // What left the queue is listed with its thumbnail: the cancelled job here.
    await expect.poll(() => drawer.getByRole('list', { name: 'Just finished' }).getByRole('listitem').count()).toBeGreaterThan(0);
    expect(await overflowing(page)).toEqual([]);
    await shoot('queue-drawer-phone');
    await drawer.getByRole('button', { name: 'Close the queue' }).click();
    expect(await page.getByRole('complementary', { name: 'Queue' }).count()).toBe(0);
  });
});
