/**
 * The web UI's third pass (issue #30, "Defects seen") in a real browser against a real Studio with
 * the stand-in engine: a preset made from a job keeps the job as its source and its badge names
 * the job. Screenshots at desktop and phone width; no sideways scrolling on the phone.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../server/config.js';
import { launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { overflowing } from '../helpers/page-checks.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';
import { execute, plantModels, SHIPPED_MODELS, waitForJob } from '../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

const SHOTS = path.join(APP_ROOT, 'artifacts', 'screenshots');
const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

let studio: TestStudio;
let browser: TestBrowser;
let context: BrowserContext;
let page: Page;

/** A screenshot at desktop and phone width, and the elements wider than the phone. */
async function shootBoth(name: string): Promise<string[]> {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: path.join(SHOTS, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: path.join(SHOTS, `${name}-phone.png`), fullPage: true });
  const wide = await overflowing(page);
  await page.setViewportSize(DESKTOP);
  return wide;
}

describe('Studio web UI, third pass: defects', () => {
  beforeAll(async () => {
    ensureRendererBuilt();
    studio = await startTestStudio({ startEngine: true, env: { STANDIN_STEP_MS: '20', STANDIN_NODE_MS: '5' } });
    plantModels(studio.dir, SHIPPED_MODELS);
    await studio.studio.engineReady(60_000);
    browser = await launchBrowser();
    context = await browser.browser.newContext({ viewport: DESKTOP, locale: 'en-GB' });
    const cookie = await studio.login();
    const [name, value] = cookie.split('=') as [string, string];
    await context.addCookies([{ name, value, url: studio.url }]);
    page = await context.newPage();
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await studio?.stop();
  });

  it('makes a preset from a job with the job as its source, and the badge names the job', async () => {
    const { prompt_id } = await execute(studio.api, 'txt2img-sdxl', { params: { positive: 'a heron', steps: 2 } });
    await waitForJob(studio.api, prompt_id, ['completed'], 60_000);
    await page.goto(`${studio.url}/jobs/${prompt_id}`);
    await page.getByRole('button', { name: 'Make a preset' }).click();
    await page.getByText(/Saved as preset/).waitFor();
    const list = (await (await studio.api('/api/admin/presets')).json()) as { id: string }[];
    expect(list).toHaveLength(1);
    const detail = (await (await studio.api(`/api/admin/presets/${list[0]!.id}`)).json()) as { source?: { type: string; prompt_id?: string } };
    expect(detail.source).toEqual({ type: 'job', prompt_id });

    await page.goto(`${studio.url}/presets`);
    const badge = page.getByRole('link', { name: `From job ${prompt_id.slice(0, 8)}` });
    await badge.waitFor();
    expect(await badge.getAttribute('href')).toBe(`/jobs/${prompt_id}`);
    expect(await shootBoth('3-presets-from-job')).toEqual([]);
  });
});
