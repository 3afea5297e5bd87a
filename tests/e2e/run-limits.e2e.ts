/**
 * A person's limits in the browser (issue 43, points 3 and 4), in headless Chromium against a real
 * Studio: a member past their hourly quota presses Run and reads, beside the Run button, that the
 * quota is reached and when they can run again; a workflow outside their allow-list is named; the
 * home page shows them no "Download missing models" (they would get 403), the owner still sees it,
 * and the Models page shows them the catalog without download, delete or import controls.
 * Screenshots of the refused run at 1440×900 and 390×844.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newSignedInPage, PHONE, resizeTo, saveScreenshot, DESKTOP, type TestBrowser } from '../helpers/browser.js';
import { jobFixtures } from '../helpers/job-fixtures.js';
import { addPerson, type Person } from '../helpers/people.js';
import { overflowing } from '../helpers/page-checks.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';
import { jobRecord } from '../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

let studio: TestStudio;
let browser: TestBrowser;
let owner: { context: BrowserContext; page: Page };
let member: { context: BrowserContext; page: Page };
let quinn: Person;

beforeAll(async () => {
  ensureRendererBuilt();
  studio = await startTestStudio();
  quinn = await addPerson(studio, 'Quinn', 'member', { quotas: { jobs_per_hour: 1 }, allow: { workflows: ['txt2img-sdxl'] } });
  // One job ten minutes ago: the hour's one job is taken.
  jobFixtures(studio.studio).insert(jobRecord({ prompt_id: 'quinn-earlier', status: 'completed', workflow_id: 'txt2img-sdxl', owner_id: quinn.id }), Date.now() - 10 * 60_000);
  browser = await launchBrowser();
  owner = await newSignedInPage(browser, studio);
  const context = await browser.context(DESKTOP);
  const page = await context.newPage();
  member = { context, page };
  await page.goto(`${studio.url}/login`);
  await page.getByLabel('Name').fill(quinn.name);
  await page.getByLabel('Password').fill(quinn.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname !== '/login');
});

afterAll(async () => {
  await member?.context.close();
  await owner?.context.close();
  await browser?.close();
  await studio?.stop();
});

describe('a member past a quota', () => {
  it('reads beside Run that the quota is reached and when they can run again', async () => {
    const { page } = member;
    await page.goto(`${studio.url}/run/txt2img-sdxl`);
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Quota reached' });
    await alert.waitFor();
    // The date follows the time when that hour falls on another day (an hour before midnight).
    expect(await alert.textContent()).toMatch(/^Quota reached: 1 job per hour reached; you can run again at \d\d:\d\d( on \d{4}-\d\d-\d\d)?$/);
    for (const [label, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      await resizeTo(page, viewport);
      expect(label === 'phone' ? await overflowing(page) : [], `run page at ${label} width`).toEqual([]);
      await saveScreenshot(page, `run-quota-reached-${label}`);
    }
    await resizeTo(page, DESKTOP);
  });

  it('is told which workflow is not theirs to run', async () => {
    const { page } = member;
    await page.goto(`${studio.url}/run/txt2img-sd15`);
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'Not allowed: You may not run the workflow "txt2img-sd15"' }).waitFor();
  });
});

describe('the home page', () => {
  it('offers "Download missing models" to the owner only, and a member only the workflows they may run', async () => {
    await owner.page.goto(`${studio.url}/home`);
    const ownersCard = owner.page.getByRole('article', { name: /SDXL/ }).first();
    await ownersCard.getByRole('button', { name: 'Download missing models' }).waitFor();
    const { page } = member;
    await page.goto(`${studio.url}/home`);
    const card = page.getByRole('article', { name: /SDXL/ }).first();
    await card.getByRole('link', { name: /^Open / }).waitFor();
    expect(await page.getByRole('button', { name: 'Download missing models' }).count()).toBe(0);
    // Quinn may run txt2img-sdxl only: the other workflows are not offered.
    expect(await page.getByRole('article', { name: 'SD 1.5 text to image' }).count()).toBe(0);
    expect(await owner.page.getByRole('article', { name: 'SD 1.5 text to image' }).count()).toBe(1);
  });

  it('shows a member the model catalog without download, delete or import controls', async () => {
    await owner.page.goto(`${studio.url}/models`);
    await owner.page.getByRole('button', { name: /^Download .*SDXL/ }).first().waitFor();
    const { page } = member;
    await page.goto(`${studio.url}/models`);
    await page.getByRole('list', { name: 'Model list' }).getByRole('article').first().waitFor();
    for (const name of [/^Download /, /^Delete file of /, /^Download selected/]) expect(await page.getByRole('button', { name }).count(), String(name)).toBe(0);
    expect(await page.getByText('Import catalog…').count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Activity' }).count()).toBe(0);
    for (const [label, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      await resizeTo(page, viewport);
      expect(label === 'phone' ? await overflowing(page) : [], `models page at ${label} width`).toEqual([]);
      await saveScreenshot(page, `models-member-${label}`);
    }
    await resizeTo(page, DESKTOP);
  });
});
