/**
 * axe "scrollable-region-focusable" (serious) on a phone (issue 47): the Models page's activity
 * log and the LLM page's conversation scroll once long, and a keyboard must reach them. The test
 * makes each long (lines added to the rendered list, as a busy day's activity or a long chat
 * would) and asks axe at 390 px.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newSignedInPage, PHONE, type TestBrowser } from '../helpers/browser.js';
import { axeViolations } from '../helpers/page-checks.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

let studio: TestStudio;
let browser: TestBrowser;

beforeAll(async () => {
  ensureRendererBuilt();
  studio = await startTestStudio();
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await studio?.stop();
});

/** Sixty lines into the element `selector` finds, so it scrolls. */
async function lengthen(page: Page, selector: string, tag: string): Promise<void> {
  await page.locator(selector).first().waitFor({ state: 'attached' });
  await page.evaluate(`(() => { const box = document.querySelector(${JSON.stringify(selector)}); for (let i = 0; i < 60; i++) { const el = document.createElement(${JSON.stringify(tag)}); el.textContent = 'line ' + i; box.appendChild(el); } })()`);
}

describe('scrollable regions on a phone', () => {
  it('the Models activity log and the LLM conversation can be reached by keyboard', async () => {
    const { context, page } = await newSignedInPage(browser, studio, PHONE);
    await page.goto(`${studio.url}/models`);
    await lengthen(page, 'ol[aria-label="Activity log"]', 'li');
    expect(await axeViolations(page)).toEqual([]);
    await page.goto(`${studio.url}/llm`);
    await lengthen(page, '[role="log"][aria-label="Conversation"]', 'p');
    expect(await axeViolations(page)).toEqual([]);
    await context.close();
  }, 60_000);
});
