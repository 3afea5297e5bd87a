/**
 * Importing a workflow from the home page in headless Chromium against a real Studio with the
 * stand-in engine: choose the editor's JSON, see the proposed form and the needs, open the Run
 * page it links to. No sideways scrolling at phone width; screenshots at 1440×900 and 390×844.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classicUi } from '../fixtures/workflow-import/fixtures.js';
import { launchBrowser, newSignedInPage, saveScreenshot, type TestBrowser, VIEWPORTS } from '../helpers/browser.js';
import { axeViolations, overflowing } from '../helpers/page-checks.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';
import { plantModels } from '../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

let studio: TestStudio;
let browser: TestBrowser;
let fileDir: string;

beforeAll(async () => {
  ensureRendererBuilt();
  studio = await startTestStudio({ startEngine: true });
  await studio.studio.engineReady();
  plantModels(studio.dir, { checkpoints: ['sd_xl_base_1.0.safetensors'] });
  browser = await launchBrowser();
  fileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-import-e2e-'));
});

afterAll(async () => {
  await browser?.close();
  await studio?.stop();
  if (fileDir) fs.rmSync(fileDir, { recursive: true, force: true });
});

describe('importing a workflow from the home page', () => {
  for (const [label, viewport] of VIEWPORTS) {
    it(`imports the editor's JSON and links to its form (${label})`, async () => {
      const file = path.join(fileDir, `Fox ${label}.json`);
      fs.writeFileSync(file, JSON.stringify(classicUi()));
      const { context, page } = await newSignedInPage(browser, studio, viewport);
      await page.goto(`${studio.url}/`);
      await page.getByLabel('Workflow file').setInputFiles(file);
      await page.getByLabel('Category (optional)').fill('mine');
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      const result = page.getByRole('status', { name: 'Import result' });
      await result.waitFor();
      await expect.poll(() => result.textContent()).toMatch(/Fox .*8 form input\(s\): Prompt, Negative prompt, Seed, Steps/);
      expect(await result.textContent()).toMatch(/Needs models: sd_xl_base_1\.0\.safetensors/);
      // The new workflow is listed with its category.
      const card = page.getByRole('region', { name: 'Workflows' }).getByRole('article', { name: `Fox ${label}` });
      await card.waitFor();
      expect(await card.locator('.badge.cat').textContent()).toBe('mine');
      const problems = [...(label === 'phone' ? await overflowing(page) : []), ...(await axeViolations(page))];
      expect(problems).toEqual([]);
      await saveScreenshot(page, `workflow-import-${label}`);
      await page.getByRole('link', { name: 'Open the form and run it' }).click();
      await page.getByLabel('Prompt', { exact: true }).waitFor();
      expect(await page.getByLabel('Prompt', { exact: true }).inputValue()).toBe('a red fox in the snow');
      await context.close();
    });
  }
});
