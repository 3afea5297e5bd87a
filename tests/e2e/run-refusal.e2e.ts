/**
 * Issue 47, point 1, in a real browser against a Studio on the stand-in engine with no model
 * planted: the not-ready banner's promise holds (Ctrl+Enter runs and answers with a test card);
 * a refused run is shown beside Run in words (which input file, which model with its Download
 * button), in view and focused, never the engine's raw validation text; and pressing Run does not
 * move the page on a desktop.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../server/config.js';
import { refusedRun } from '../../server/jobs/refusal-words.js';
import { launchBrowser, newSessionPage, resizeTo, type TestBrowser } from '../helpers/browser.js';
import { axeViolations, overflowing } from '../helpers/page-checks.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';
import { uploadSample, waitForJob } from '../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

const SHOTS = process.env.SHOTS_DIR ?? path.join(APP_ROOT, 'artifacts', 'screenshots');
const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };

let studio: TestStudio;
let browser: TestBrowser;
let context: BrowserContext;
let page: Page;

async function jobInUrl(): Promise<string | null> {
  return new URL(page.url()).searchParams.get('job');
}

/** The refusal box: focused, and wholly inside the window. */
async function refusalSeen(): Promise<{ focused: boolean; inView: boolean; text: string }> {
  return page.evaluate(`(() => {
    const box = document.querySelector('[aria-label="Why the run was refused"]');
    if (!box) return { focused: false, inView: false, text: '' };
    const r = box.getBoundingClientRect();
    return { focused: document.activeElement === box, inView: r.top >= 0 && r.bottom <= window.innerHeight, text: box.textContent };
  })()`);
}

/** What is wrong on the page now at desktop and phone width (screenshots of the window as the person sees it). */
async function checkBoth(name: string): Promise<string[]> {
  fs.mkdirSync(SHOTS, { recursive: true });
  const problems: string[] = [];
  for (const [label, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
    await resizeTo(page, viewport);
    await page.locator('[aria-label="Why the run was refused"]').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, `${name}-${label}.png`) });
    problems.push(...(await axeViolations(page)).map((v) => `${label}: ${v}`));
    if (label === 'phone') problems.push(...(await overflowing(page)).map((v) => `phone: ${v}`));
  }
  await resizeTo(page, DESKTOP);
  return problems;
}

describe('Run page: promises and refusals (#47 point 1)', () => {
  beforeAll(async () => {
    ensureRendererBuilt();
    studio = await startTestStudio({ startEngine: true, env: { STANDIN_STEP_MS: '20', STANDIN_NODE_MS: '5' } });
    await studio.studio.engineReady(60_000);
    browser = await launchBrowser();
    ({ context, page } = await newSessionPage(browser, studio, { viewport: DESKTOP }));
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await studio?.stop();
  });

  it('runs a not-ready workflow on the stand-in with Ctrl+Enter and answers with a test card, as its banner says', async () => {
    await page.goto(`${studio.url}/run/txt2img-sdxl`);
    const banner = page.getByRole('note').filter({ hasText: 'This workflow is not ready' });
    await banner.waitFor();
    expect(await banner.textContent()).toContain('The stand-in engine runs it anyway and answers with a test card.');
    await page.getByRole('spinbutton', { name: 'Steps' }).first().fill('2');
    await page.getByRole('textbox', { name: 'Prompt', exact: true }).fill('a fox without its model');
    await page.keyboard.press('Control+Enter');
    await expect.poll(jobInUrl).not.toBeNull();
    expect((await waitForJob(studio.api, (await jobInUrl())!, ['completed', 'error'], 60_000)).status).toBe('completed');
    await page.getByText('this is a test card, not a generated result').waitFor();
    expect(await page.locator('[aria-label="Why the run was refused"]').count()).toBe(0);
  });

  it('shows a refused run beside Run, in words, in view and focused (an input file gone)', async () => {
    const name = await uploadSample(studio.api, 'gone-soon.png');
    await page.goto(`${studio.url}/run/image-filter`);
    const earlier = page.getByRole('combobox', { name: 'Or use an earlier input' });
    await earlier.waitFor();
    await earlier.selectOption(name);
    fs.rmSync(path.join(studio.dir, 'assets', 'input', name));
    await page.getByRole('button', { name: 'Run', exact: true }).focus();
    await page.keyboard.press('Control+Enter');
    await expect.poll(async () => (await refusalSeen()).text).toContain(`The input file “${name}” is not there any more`);
    expect(await refusalSeen()).toMatchObject({ focused: true, inView: true });
    expect(await page.locator('body').textContent()).not.toMatch(/failed validation|node_errors|custom_validation_failed/);
    expect(await jobInUrl()).toBeNull();
  });

  it('names a missing model with its Download button when an engine refuses it', async () => {
    // The engine's 400 as Studio answers it for a real engine (the stand-in runs such a graph): the server's own rule makes the body.
    const err = refusedRun({
      error: { type: 'prompt_outputs_failed_validation', message: 'Prompt outputs failed validation' },
      node_errors: { '4': { class_type: 'CheckpointLoaderSimple', errors: [{ type: 'value_not_in_list', message: 'Value not in list', details: "ckpt_name: 'sd_xl_base_1.0.safetensors' not in []", extra_info: { input_name: 'ckpt_name', received_value: 'sd_xl_base_1.0.safetensors' } }] } },
    });
    await page.route('**/api/run/txt2img-sdxl/execute', (route) => route.fulfill({ status: 400, contentType: 'application/json', body: JSON.stringify({ ...err.extra, detail: err.message }) }));
    await page.goto(`${studio.url}/run/txt2img-sdxl`);
    await page.getByRole('textbox', { name: 'Prompt', exact: true }).fill('a fox on a real engine');
    await page.keyboard.press('Control+Enter');
    await expect.poll(async () => (await refusalSeen()).text).toContain('The model sd_xl_base_1.0.safetensors is missing');
    expect(await refusalSeen()).toMatchObject({ focused: true, inView: true });
    expect(await page.getByRole('button', { name: 'Download sd_xl_base_1.0.safetensors' }).isVisible()).toBe(true);
    expect(await checkBoth('run-refused-model')).toEqual([]);
    await page.unroute('**/api/run/txt2img-sdxl/execute');
  });

  it('does not move the page when Run is pressed on a desktop', async () => {
    // A laptop's window: the job panel beside the form starts below the middle of the window.
    await resizeTo(page, { width: 1280, height: 720 });
    await page.goto(`${studio.url}/run/txt2img-sdxl`);
    await page.getByRole('spinbutton', { name: 'Steps' }).first().fill('2');
    const run = page.getByRole('button', { name: 'Run', exact: true });
    // From the top (the not-ready banner pushes the job panel below the middle) and from the Run button.
    for (const where of ['top', 'button'] as const) {
      if (where === 'top') await page.evaluate('window.scrollTo(0, 0)');
      else await run.evaluate((b: { scrollIntoView(o: unknown): void }) => b.scrollIntoView({ block: 'center' }));
      const before = await page.evaluate<number>('window.scrollY');
      const previous = await jobInUrl();
      await run.evaluate((b: { click(): void }) => b.click());
      await expect.poll(jobInUrl).not.toBe(previous);
      await page.waitForTimeout(600);
      expect(Math.abs((await page.evaluate<number>('window.scrollY')) - before), `scrolled after Run from the ${where}`).toBeLessThanOrEqual(2);
      await waitForJob(studio.api, (await jobInUrl())!, ['completed', 'error'], 60_000);
    }
    await resizeTo(page, DESKTOP);
  });
});
