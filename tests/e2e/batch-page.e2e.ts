/**
 * Batches in the browser (issue 45): the Run page's batch panel (two axes typed as text, the cell
 * count before submitting), then the Batch page: progress to the end, every cell's thumbnail under
 * its axis labels, the axes swapped, a comparison of two cells side by side and overlaid, a cell
 * opening its job, the export links. Screenshots at desktop and phone width (no sideways scrolling
 * on the phone beyond the grid's own scroller), axe's serious and critical findings.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newSessionPage, resizeTo, SHOTS, DESKTOP, PHONE, type TestBrowser } from '../helpers/browser.js';
import { axeViolations, overflowing } from '../helpers/page-checks.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';
import { plantModels, SHIPPED_MODELS } from '../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

let studio: TestStudio;
let browser: TestBrowser;
let context: BrowserContext;
let page: Page;

async function shots(name: string): Promise<string[]> {
  fs.mkdirSync(SHOTS, { recursive: true });
  const problems: string[] = [];
  for (const [label, size] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
    await resizeTo(page, size);
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: path.join(SHOTS, `${name}-${label}.png`), fullPage: true });
    problems.push(...(await axeViolations(page)).map((v) => `${label}: ${v}`));
    if (label === 'phone') problems.push(...(await overflowing(page)).map((v) => `phone: ${v}`));
  }
  await resizeTo(page, DESKTOP);
  return problems;
}

describe('batch panel and Batch page', () => {
  beforeAll(async () => {
    ensureRendererBuilt();
    studio = await startTestStudio({ startEngine: true, env: { STANDIN_STEP_MS: '20', STANDIN_NODE_MS: '5' } });
    plantModels(studio.dir, SHIPPED_MODELS);
    await studio.studio.engineReady(60_000);
    browser = await launchBrowser();
    ({ context, page } = await newSessionPage(browser, studio, { viewport: DESKTOP }));
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await studio?.stop();
  });

  it('makes a 3 × 2 grid from the Run page and shows it on the Batch page', async () => {
    await page.goto(`${studio.url}/run/txt2img-sdxl`);
    await page.getByRole('heading', { level: 1, name: 'SDXL text to image' }).waitFor();
    await page.getByRole('spinbutton', { name: 'Steps' }).first().fill('2');
    await page.getByText('Batch: many jobs from this form').click();
    await page.getByRole('combobox', { name: 'Axis 1 input' }).selectOption({ label: 'Guidance (CFG)' });
    await page.getByRole('textbox', { name: 'Axis 1 values' }).fill('5, 7, 9');
    await page.getByRole('button', { name: 'Add an axis' }).click();
    await page.getByRole('combobox', { name: 'Axis 2 input' }).selectOption({ label: 'Steps' });
    await page.getByRole('textbox', { name: 'Axis 2 values' }).fill('2-3');
    expect(await page.getByText('6 cells', { exact: true }).isVisible()).toBe(true);
    expect(await shots('batch-panel')).toEqual([]);
    await page.getByRole('button', { name: 'Queue 6 jobs' }).click();
    await page.waitForURL(/\/batches\/[0-9a-f-]+$/);
    await page.getByText('6 of 6 done').waitFor({ timeout: 60_000 });
    await page.locator('table.grid img').nth(5).waitFor();
    expect(await page.locator('table.grid img').count()).toBe(6);
    expect(await page.locator('table.grid thead th').allInnerTexts()).toEqual(['Guidance (CFG) →\nSteps ↓', '5', '7', '9']);
    // The row-label header is whole, not cut by an ellipsis.
    const corner = page.locator('table.grid th.corner');
    expect(await corner.evaluate((el) => (el as unknown as { scrollWidth: number; clientWidth: number }).scrollWidth <= (el as unknown as { clientWidth: number }).clientWidth)).toBe(true);
    expect(await page.locator('table.grid tbody th').allInnerTexts()).toEqual(['2', '3']);
    // Swapped: steps across, CFG down.
    await page.getByRole('combobox', { name: 'Axis across' }).selectOption({ label: 'Steps' });
    expect(await page.locator('table.grid thead th').allInnerTexts()).toEqual(['Steps →\nGuidance (CFG) ↓', '2', '3']);
    expect(await page.locator('table.grid tbody th').allInnerTexts()).toEqual(['5', '7', '9']);
    await page.getByRole('checkbox', { name: 'Compare cell 1' }).check();
    await page.getByRole('checkbox', { name: 'Compare cell 6' }).check();
    await page.getByRole('region', { name: 'Comparison' }).waitFor();
    expect(await page.getByRole('slider').count()).toBe(1);
    for (const name of ['grid.png', 'outputs.zip', 'map.csv']) expect(await page.getByRole('link', { name }).getAttribute('href')).toMatch(/\/api\/admin\/batches\//);
    expect(await shots('batch-page')).toEqual([]);
    await page.locator('table.grid a.open').first().click();
    await page.waitForURL(/\/jobs\//);
  });
});
