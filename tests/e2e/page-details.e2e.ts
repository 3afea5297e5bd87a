/**
 * Issue 47's smaller points in headless Chromium against a real Studio: axe finds nothing at all
 * (not only nothing serious) on Home, the form editor, Presets, Users, Disk, Events and Models;
 * Run, a job page and Setup highlight the link they are under; the header names the person once;
 * the sidebar runs the whole height of a long page; Users on a phone shows every fact of a person.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newSignedInPage, PHONE, saveScreenshot, type TestBrowser } from '../helpers/browser.js';
import { overflowing } from '../helpers/page-checks.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';
import { execute, plantModels, SHIPPED_MODELS, waitForJob } from '../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
let studio: TestStudio;
let browser: TestBrowser;

/** Every axe violation, whatever its impact, as `rule: element`. */
async function allViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate<boolean>("'axe' in window"))) await page.evaluate(AXE);
  const r = await page.evaluate<{ violations: Array<{ id: string; nodes: Array<{ html: string }> }> }>("axe.run(document, { resultTypes: ['violations'] })");
  return r.violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.html.slice(0, 120)}`));
}

const post = (pathname: string, body: unknown) => studio.api(pathname, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

beforeAll(async () => {
  ensureRendererBuilt();
  studio = await startTestStudio({ startEngine: true, env: { STANDIN_STEP_MS: '20' } });
  await studio.studio.engineReady(60_000);
  plantModels(studio.dir, SHIPPED_MODELS);
  expect((await post('/api/admin/presets', { id: 'blur', name: 'Soft blur', workflow: { workflow_id: 'image-filter', params: { strength: 0.2, blur_radius: 2 } } })).status).toBe(200);
  expect((await post('/api/admin/users', { name: 'Pat', password: 'a-long-password-1', role: 'member' })).status).toBe(200);
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await studio?.stop();
});

describe('page details', () => {
  it('has no axe violation of any impact on the pages this pass touched', async () => {
    const { context, page } = await newSignedInPage(browser, studio);
    const found: string[] = [];
    for (const [route, ready] of [
      ['/home', 'Workflows'],
      ['/workflows/image-filter/form', 'Test run'],
      ['/presets', 'Soft blur'],
      ['/users', 'Pat'],
      ['/disk', 'Usage by kind'],
      ['/events', 'Events'],
      ['/models', 'Models & LoRAs'],
    ] as const) {
      await page.goto(`${studio.url}${route}`);
      await page.getByText(ready, { exact: true }).first().waitFor();
      found.push(...(await allViolations(page)).map((v) => `${route} ${v}`));
    }
    expect(found).toEqual([]);
    await context.close();
  });

  it('highlights the link a page is under, names the person once, and runs the sidebar down a long page', async () => {
    const { context, page } = await newSignedInPage(browser, studio);
    const nav = page.getByRole('navigation', { name: 'Main' });
    const active = async () => (await nav.locator('a.active').allTextContents()).map((t) => t.trim());
    const { prompt_id } = await execute(studio.api, 'image-filter', { params: {} }).catch(() => ({ prompt_id: '' }));
    for (const [route, link] of [
      ['/run/image-filter', 'Workflows'],
      ['/setup', 'System'],
      ['/disk', 'Disk'],
      ...(prompt_id ? ([[`/jobs/${prompt_id}`, 'Queue & history']] as const) : []),
    ] as const) {
      await page.goto(`${studio.url}${route}`);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await expect.poll(active).toEqual([expect.stringContaining(link)]);
    }
    if (prompt_id) await waitForJob(studio.api, prompt_id, ['completed', 'failed'], 60_000).catch(() => undefined);
    expect(await nav.getByText(/^Signed in as /).textContent()).toBe('Signed in as owner');

    await page.goto(`${studio.url}/disk`);
    await page.getByRole('heading', { name: 'Usage by kind' }).waitFor();
    const heights = await page.evaluate<{ page: number; column: number }>(`(() => {
      const shell = document.querySelector('.shell');
      const column = getComputedStyle(shell, '::before');
      return { page: document.documentElement.scrollHeight, column: parseFloat(column.height) + document.querySelector('.topbar').getBoundingClientRect().height };
    })()`);
    expect(heights.page).toBeGreaterThan(900);
    expect(Math.abs(heights.column - heights.page)).toBeLessThanOrEqual(2);
    await saveScreenshot(page, 'disk-full-page-desktop');
    await context.close();
  }, 90_000);

  it('shows every fact of a person on a phone, as a card', async () => {
    const { context, page } = await newSignedInPage(browser, studio, PHONE);
    await page.goto(`${studio.url}/users`);
    const row = page.getByRole('row', { name: /Pat/ });
    await row.waitFor();
    for (const fact of ['Role:', 'Quotas:', 'May use:', 'Added:']) expect(await row.getByText(fact).isVisible(), fact).toBe(true);
    expect(await overflowing(page)).toEqual([]);
    await saveScreenshot(page, 'users-phone');
    await context.close();
  });
});
