/**
 * The Notifications page (issue 47) in headless Chromium against a real Studio and a local
 * ntfy-compatible receiver: reached from the navigation, a topic added, Test pressed and the
 * receiver's answer shown; a webhook's secret shown once; axe-clean and no sideways scrolling at
 * desktop and phone width, with screenshots.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newSignedInPage, saveScreenshot, type TestBrowser, VIEWPORTS } from '../helpers/browser.js';
import { startNtfy, type Receiver } from '../helpers/notify-receivers.js';
import { axeViolations, overflowing } from '../helpers/page-checks.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

let studio: TestStudio;
let browser: TestBrowser;
let ntfy: Receiver;

beforeAll(async () => {
  ensureRendererBuilt();
  ntfy = await startNtfy();
  studio = await startTestStudio();
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await studio?.stop();
  await ntfy?.close();
});

describe('Notifications page', () => {
  it('adds an ntfy topic, sends a test and shows what the receiver said', async () => {
    const { context: ctx, page } = await newSignedInPage(browser, studio);
    await page.goto(`${studio.url}/home`);
    await page.getByRole('navigation').getByRole('link', { name: 'Notifications' }).click();
    await page.waitForURL((url) => url.pathname === '/notifications');
    const form = page.getByRole('form', { name: 'Add a target' });
    await form.getByLabel('Topic URL').fill(`${ntfy.url}/my-phone`);
    await form.getByLabel('Name').fill('My phone');
    await form.getByRole('checkbox', { name: 'Batch done' }).check();
    await form.getByRole('button', { name: 'Add target' }).click();
    const card = page.getByRole('list', { name: 'My notification targets' }).getByRole('listitem').filter({ hasText: 'My phone' });
    await card.getByText('Tells you when: Job done, Job failed, Batch done').waitFor();
    await card.getByRole('button', { name: 'Send a test to My phone' }).click();
    await card.getByRole('status').getByText(/Delivered: Received \(HTTP 200\)/).waitFor();
    expect(ntfy.received.map((r) => r.path)).toContain('/my-phone');
    expect(String(ntfy.received.at(-1)!.headers.title)).toBe('Studio test notification');

    await form.getByLabel('Kind').selectOption('webhook');
    await form.getByLabel('Webhook URL').fill(`${ntfy.url}/hook`);
    await form.getByRole('button', { name: 'Add target' }).click();
    await page.getByLabel('Signing secret').getByText(/^whsec_/).waitFor();
    await ctx.close();
  });

  it('fits a phone and a desktop, with screenshots', async () => {
    for (const [label, viewport] of VIEWPORTS) {
      const { context: ctx, page } = await newSignedInPage(browser, studio, viewport);
      await page.goto(`${studio.url}/notifications`);
      await page.getByRole('list', { name: 'My notification targets' }).waitFor();
      await page.getByText('Latest deliveries (1)').first().click();
      const problems = [...(label === 'phone' ? await overflowing(page) : []), ...(await axeViolations(page))];
      expect(problems, `/notifications at ${label} width`).toEqual([]);
      await saveScreenshot(page, `notifications-${label}`);
      await ctx.close();
    }
  });
});
