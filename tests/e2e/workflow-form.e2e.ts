/**
 * The form editor of an imported workflow in headless Chromium against a real Studio with the
 * stand-in engine: relabel, remove and add inputs with a live preview, save, a one-click test run
 * that shows its result, a re-import of a changed version (preview of what changes, then applied),
 * "Separate prompts" on a prompt written into two text fields (SDXL's text_g/text_l), and the Nodes
 * page offering the package an import's node map knew. No sideways scrolling at
 * phone width; screenshots at 1440×900 and 390×844.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../server/config.js';
import { changedClassicUi, classicApi, classicUi } from '../fixtures/workflow-import/fixtures.js';
import { launchBrowser, newSignedInPage, saveScreenshot, type TestBrowser, VIEWPORTS } from '../helpers/browser.js';
import { axeViolations, overflowing } from '../helpers/page-checks.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';
import { plantModels } from '../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

let studio: TestStudio;
let browser: TestBrowser;
let fileDir: string;

async function importVia(body: unknown, fileName: string): Promise<void> {
  const form = new FormData();
  form.append('file', new Blob([JSON.stringify(body)]), fileName);
  const res = await studio.api('/api/admin/workflows/import', { method: 'POST', body: form });
  expect(res.status, await res.clone().text()).toBe(200);
}

beforeAll(async () => {
  ensureRendererBuilt();
  studio = await startTestStudio({ startEngine: true });
  await studio.studio.engineReady();
  plantModels(studio.dir, { checkpoints: ['sd_xl_base_1.0.safetensors'] });
  await importVia({ ...classicApi(), '20': { class_type: 'ImageResizeKJ', inputs: { image: ['8', 0] } } }, 'Resize with KJ.json');
  browser = await launchBrowser();
  fileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-form-e2e-'));
  fs.writeFileSync(path.join(fileDir, 'fox-v2.json'), JSON.stringify(changedClassicUi()));
});

afterAll(async () => {
  await browser?.close();
  await studio?.stop();
  if (fileDir) fs.rmSync(fileDir, { recursive: true, force: true });
});

describe('separate prompts', () => {
  it('splits one prompt written into SDXL\'s two text fields into an input per field', async () => {
    const corpus = JSON.parse(fs.readFileSync(path.join(APP_ROOT, 'tests', 'fixtures', 'workflow-import', 'corpus', 'sdxl-dual-text.json'), 'utf8')) as { workflow: unknown };
    await importVia(corpus.workflow, 'sdxl-dual.json');
    const { context, page } = await newSignedInPage(browser, studio, VIEWPORTS[0]![1]);
    await page.goto(`${studio.url}/run/sdxl-dual`);
    await page.getByRole('link', { name: 'Edit the form' }).click();
    await page.getByRole('heading', { name: 'Form of sdxl-dual' }).waitFor();
    await page.getByRole('button', { name: 'Separate prompts of positive' }).click();
    await page.getByText('Prompts separated (version 3)').waitFor();
    await page.getByRole('listitem', { name: 'Input Prompt (text_g)' }).waitFor();
    await page.getByRole('listitem', { name: 'Input Prompt (text_l)' }).waitFor();
    expect(await page.getByRole('button', { name: /Separate prompts/ }).count()).toBe(0);
    const form = (await (await studio.api('/api/admin/workflows/sdxl-dual/form')).json()) as { manifest: { inputs: { id: string; node_id?: number; field?: string; default?: unknown }[] } };
    expect(form.manifest.inputs.slice(0, 2)).toMatchObject([
      { id: 'positive_text_g', node_id: 2, field: 'text_g', default: 'an astronaut riding a horse, film still' },
      { id: 'positive_text_l', node_id: 2, field: 'text_l', default: 'an astronaut riding a horse, film still' },
    ]);
    await context.close();
  });
});

describe('the form editor', () => {
  for (const [label, viewport] of VIEWPORTS) {
    it(`edits, previews, saves, test-runs and re-imports a form (${label})`, async () => {
      const id = `fox-${label}`;
      await importVia(classicUi(), `${id}.json`);
      const { context, page } = await newSignedInPage(browser, studio, viewport);
      await page.goto(`${studio.url}/run/${id}`);
      await page.getByRole('link', { name: 'Edit the form' }).click();
      await page.getByRole('heading', { name: `Form of ${id}` }).waitFor();

      await page.locator('#fi-positive-label').fill('Describe it');
      await page.getByRole('button', { name: 'Remove negative' }).click();
      const picker = page.getByRole('form', { name: 'Add a field' });
      await picker.getByLabel('Node').selectOption({ label: '3 · KSampler' });
      await picker.getByLabel('Field').selectOption('sampler_name');
      await picker.getByRole('button', { name: 'Add to the form' }).click();
      const preview = page.getByRole('region', { name: 'Preview' });
      await preview.getByLabel('Describe it', { exact: true }).waitFor();
      await preview.getByLabel(/Sampler name/).waitFor();
      expect(await preview.getByLabel('Negative prompt', { exact: true }).count()).toBe(0);
      await page.getByRole('button', { name: 'Save the form' }).click();
      await page.getByText('Form saved (version 2)').waitFor();

      await page.getByRole('button', { name: 'Test run with the defaults' }).click();
      const result = page.getByRole('status', { name: 'Test run result' });
      await result.locator('img').first().waitFor({ timeout: 30_000 });

      await page.getByLabel('Changed workflow file').setInputFiles(path.join(fileDir, 'fox-v2.json'));
      await page.getByRole('button', { name: 'Show what changes' }).click();
      const diff = page.getByRole('status', { name: 'What the re-import changes' });
      await diff.waitFor();
      expect(await diff.textContent()).toMatch(/Nodes added: 20 EmptyLatentImage.*Nodes removed: 5 EmptyLatentImage.*Dropped “Width”: node 5 \(EmptyLatentImage\) is gone/s);
      const problems = [...(label === 'phone' ? await overflowing(page) : []), ...(await axeViolations(page))];
      expect(problems).toEqual([]);
      await saveScreenshot(page, `workflow-form-${label}`);
      await page.getByRole('button', { name: 'Apply the new version' }).click();
      await page.getByText('Re-imported: version 3').waitFor();
      await page.locator('#fi-positive-label').waitFor();
      expect(await page.locator('#fi-positive-label').inputValue()).toBe('Describe it');

      await page.goto(`${studio.url}/nodes`);
      const needed = page.getByRole('region', { name: 'Packages workflows need' });
      await needed.getByRole('button', { name: 'Install ComfyUI-KJNodes' }).waitFor();
      expect(await needed.textContent()).toMatch(/ComfyUI-KJNodes\s*for Resize with KJ/);
      const nodeProblems = [...(label === 'phone' ? await overflowing(page) : []), ...(await axeViolations(page))];
      expect(nodeProblems).toEqual([]);
      await saveScreenshot(page, `nodes-needed-${label}`);
      await context.close();
    });
  }
});
