/**
 * Importing a workflow from the home page in headless Chromium against a real Studio with the
 * stand-in engine: choose the editor's JSON, see the proposed form and the needs, open the Run
 * page it links to. No sideways scrolling at phone width; screenshots at 1440×900 and 390×844.
 * A shared ZIP naming its own repositories for node packages: the result and the Nodes page show
 * host and owner, install a name the node map knows only from the map's URL, and ask before a URL
 * only the file names is fetched.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { classicApi, classicUi, zipOf } from '../fixtures/workflow-import/fixtures.js';
import { launchBrowser, newSignedInPage, saveScreenshot, type TestBrowser, VIEWPORTS } from '../helpers/browser.js';
import { axeViolations, overflowing } from '../helpers/page-checks.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';
import { plantModels, uploadSample } from '../helpers/runner.js';
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
      await expect.poll(() => result.textContent()).toMatch(/Fox .*8 form inputs: Prompt, Negative prompt, Seed, Steps/);
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

describe('an editor graph of small utility nodes, its test run, and import errors (#47 point 7)', () => {
  it('proposes the blur\'s radius and sigma beside the image, test-runs with the last upload, and shows an import error inline', async () => {
    const graph = {
      '1': { class_type: 'LoadImage', inputs: { image: 'example.png' } },
      '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 3, sigma: 1.5 } },
      '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'blurred' } },
    };
    const file = path.join(fileDir, 'Blur it.json');
    fs.writeFileSync(file, JSON.stringify(graph));
    const last = await uploadSample(studio.api, 'last-upload.png');
    const { context, page } = await newSignedInPage(browser, studio, VIEWPORTS[1][1]);
    await page.goto(`${studio.url}/`);
    const panel = page.getByRole('region', { name: 'Import a workflow' });
    // A file that is no workflow: the reason stays in the panel, in view (not a toast over the form).
    const broken = path.join(fileDir, 'broken.json');
    fs.writeFileSync(broken, '{ not json');
    await panel.getByLabel('Workflow file').setInputFiles(broken);
    await panel.getByRole('button', { name: 'Import', exact: true }).click();
    const refused = panel.getByRole('alert').filter({ hasText: 'The file was not imported' });
    await refused.waitFor();
    expect(await refused.isVisible()).toBe(true);

    await panel.getByLabel('Workflow file').setInputFiles(file);
    await panel.getByRole('button', { name: 'Import', exact: true }).click();
    const result = page.getByRole('status', { name: 'Import result' });
    await expect.poll(() => result.textContent()).toMatch(/3 form inputs: Image, Blur radius, Sigma/);
    expect(await refused.count()).toBe(0);
    // The test run asks for a real image and starts from the last upload, not the graph's example.png.
    const testRun = page.getByRole('region', { name: 'Test run' });
    await expect.poll(() => testRun.getByRole('img', { name: /Chosen image for the test run/ }).getAttribute('src')).toContain(encodeURIComponent(last));
    await testRun.getByRole('button', { name: 'Test run with this image' }).click();
    await page.getByRole('status', { name: 'Test run result' }).locator('img').first().waitFor({ timeout: 30_000 });
    expect(await overflowing(page)).toEqual([]);
    await saveScreenshot(page, 'workflow-import-test-run-phone');
    await context.close();
  });

  it('turns a workflow card ready when its model\'s download is announced, without a reload', async () => {
    const graph = classicApi();
    graph['4']!.inputs.ckpt_name = 'arrives-later.safetensors';
    const file = path.join(fileDir, 'Later fox.json');
    fs.writeFileSync(file, JSON.stringify(graph));
    const { context, page } = await newSignedInPage(browser, studio, VIEWPORTS[0][1]);
    await page.goto(`${studio.url}/`);
    await page.getByLabel('Workflow file').setInputFiles(file);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const card = page.getByRole('region', { name: 'Workflows' }).getByRole('article', { name: 'Later fox' });
    await card.getByText('Not ready').waitFor();
    plantModels(studio.dir, { checkpoints: ['arrives-later.safetensors'] });
    studio.studio.events.emit('download.done', 'success', 'Downloaded arrives-later.safetensors', { filename: 'arrives-later.safetensors' });
    await card.getByText('Ready', { exact: true }).waitFor({ timeout: 10_000 });
    await context.close();
  });
});

describe('a shared workflow ZIP naming its own repositories', () => {
  it('shows host and owner, installs a known name only from the node map, and asks before fetching a URL only the file names', async () => {
    const manifest = {
      id: 'shared-e2e', name: 'Shared e2e', type: 'static', version: 1, date: '2026-11-28 12:00', inputs: [], outputs: [{ type: 'image' }],
      required_nodes: ['ComfyUI-Impact-Pack', 'ComfyUI-Unheard'],
      node_sources: { 'ComfyUI-Impact-Pack': 'https://evil.example/attacker/ComfyUI-Impact-Pack', 'ComfyUI-Unheard': 'https://git.example.org/maker/ComfyUI-Unheard' },
    };
    const file = path.join(fileDir, 'shared.zip');
    fs.writeFileSync(file, zipOf({ 'manifest.yaml': toYaml(manifest), 'workflow.json': JSON.stringify(classicApi()) }));
    const { context, page } = await newSignedInPage(browser, studio, VIEWPORTS[0][1]);
    await page.goto(`${studio.url}/`);
    await page.getByLabel('Workflow file').setInputFiles(file);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const sources = page.getByRole('list', { name: 'Where node packages would come from' });
    await sources.waitFor();
    const text = await sources.textContent();
    expect(text).toMatch(/ComfyUI-Impact-Pack: github\.com\/ltdrdata \(node map\); this file named another repository, https:\/\/evil\.example\/attacker\/ComfyUI-Impact-Pack, which is not used/);
    expect(text).toMatch(/ComfyUI-Unheard: git\.example\.org\/maker \(named by this file: asked before it is fetched\)/);

    await page.goto(`${studio.url}/nodes`);
    const needed = page.getByRole('region', { name: 'Packages workflows need' });
    const impact = needed.getByRole('button', { name: 'Install ComfyUI-Impact-Pack' });
    await impact.waitFor();
    expect(await impact.getAttribute('title')).toBe('https://github.com/ltdrdata/ComfyUI-Impact-Pack');
    expect(await needed.textContent()).toMatch(/git\.example\.org\/maker · from the workflow file/);
    const asked: string[] = [];
    page.once('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.dismiss();
    });
    await needed.getByRole('button', { name: 'Install ComfyUI-Unheard' }).click();
    await expect.poll(() => asked.length).toBe(1);
    expect(asked[0]).toMatch(/No node map knows ComfyUI-Unheard.*https:\/\/git\.example\.org\/maker\/ComfyUI-Unheard/s);
    await saveScreenshot(page, 'nodes-sources-from-file');
    await context.close();
  });
});
