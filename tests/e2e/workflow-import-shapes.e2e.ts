/**
 * One workflow of each shape of the import corpus (`tests/fixtures/workflow-import/corpus/`:
 * guider-based Flux, SD 3.5 with a zeroed-out negative, SDXL's dual text encoder, three video
 * image-to-video graphs, a bypass chain, nested subgraphs, group nodes, App Mode) imported through
 * the home page's import panel in headless Chromium, against a real Studio with the stand-in
 * engine: the result names the prompt, the negative prompt where the graph has one, seed, steps
 * and size; the form it links to has those fields; with the models the import names planted (and
 * an input image chosen on the form where the graph takes one) Run starts a job, and it finishes.
 * Screenshots of the result and the form of every shape at desktop width, at phone width too for
 * two; axe at both widths, no sideways scrolling on the phone.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../server/config.js';
import type { ApiGraph } from '../../server/engine/engine-graph.js';
import { listSourceOf } from '../../server/engine/prompt-rules/list-sources.js';
import { DESKTOP, launchBrowser, newSessionPage, PHONE, resizeTo, saveScreenshot, type TestBrowser } from '../helpers/browser.js';
import { axeViolations, overflowing } from '../helpers/page-checks.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';
import { plantModels, SAMPLE_PNG, waitForJob } from '../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

const corpusDir = path.join(APP_ROOT, 'tests', 'fixtures', 'workflow-import', 'corpus');

interface CorpusEntry {
  workflow: Record<string, unknown>;
  prompt: ApiGraph;
  /** `positive_id`: App Mode names the prompt input (its label is the App Mode one, not "Prompt"). */
  expect: { negative: unknown[] | null; inputs: string[]; positive_id?: string };
}

const SHAPES = ['flux-guider', 'sd35-zero-out', 'sdxl-dual-text', 'wan-i2v', 'hunyuan-i2v', 'ltx-i2v', 'bypass-chain', 'nested-subgraph', 'group-nodes', 'app-mode'];
/** The shapes photographed at phone width too: a video graph with an image input, and the one with the most fields. */
const BOTH_WIDTHS = new Set(['wan-i2v', 'sdxl-dual-text']);

let studio: TestStudio;
let browser: TestBrowser;
let context: BrowserContext;
let page: Page;
let fileDir: string;

beforeAll(async () => {
  ensureRendererBuilt();
  // Short steps: ten runs to the end, on a 2-core CI.
  studio = await startTestStudio({ startEngine: true, env: { STANDIN_STEP_MS: '5', STANDIN_NODE_MS: '5' } });
  await studio.studio.engineReady(60_000);
  browser = await launchBrowser();
  ({ context, page } = await newSessionPage(browser, studio, { viewport: DESKTOP }));
  fileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-import-shapes-'));
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await studio?.stop();
  if (fileDir) fs.rmSync(fileDir, { recursive: true, force: true });
});

/** Each model file the graph's loaders name → the engine model folder the stand-in lists it from. */
function modelFolders(graph: ApiGraph): Map<string, string> {
  const out = new Map<string, string>();
  for (const node of Object.values(graph)) {
    for (const [field, value] of Object.entries(node.inputs)) {
      const source = listSourceOf(node.class_type, field);
      if (typeof value === 'string' && source && 'models' in source) out.set(value, source.models);
    }
  }
  return out;
}

/** The page at desktop width, then at phone width (axe at both, overflow on the phone), back at desktop. */
async function shootBoth(name: string): Promise<string[]> {
  const problems = (await axeViolations(page)).map((v) => `desktop: ${v}`);
  await saveScreenshot(page, `${name}-desktop`);
  await resizeTo(page, PHONE);
  problems.push(...(await axeViolations(page)).map((v) => `phone: ${v}`), ...(await overflowing(page)).map((v) => `phone: ${v}`));
  await saveScreenshot(page, `${name}-phone`);
  await resizeTo(page, DESKTOP);
  return problems;
}

async function shoot(shape: string, name: string): Promise<string[]> {
  // From the top: a full-page shot of a page scrolled down draws the fixed header mid-page.
  await page.evaluate('window.scrollTo(0, 0)');
  if (BOTH_WIDTHS.has(shape)) return shootBoth(name);
  await saveScreenshot(page, `${name}-desktop`);
  return (await axeViolations(page)).map((v) => `desktop: ${v}`);
}

describe('importing one workflow of each shape from the home page (#42)', () => {
  for (const shape of SHAPES) {
    it(`${shape}: the result names prompt, seed, steps and size; the form runs`, async () => {
      const entry = JSON.parse(fs.readFileSync(path.join(corpusDir, `${shape}.json`), 'utf8')) as CorpusEntry;
      const file = path.join(fileDir, `${shape}.json`);
      fs.writeFileSync(file, JSON.stringify(entry.workflow));
      await page.goto(`${studio.url}/`);
      await page.getByLabel('Workflow file').setInputFiles(file);
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      const result = page.getByRole('status', { name: 'Import result' });
      await result.waitFor();

      // App Mode's prompt is a bare "text" widget: it is labelled by its node's title ("Prompt"), not "Text" (#47).
      const prompt = 'Prompt';
      const labels = [prompt, ...(entry.expect.negative ? ['Negative prompt'] : []), 'Seed', 'Steps', 'Width', 'Height'];
      const proposed = (await result.locator('p').first().locator('span.small:not(.muted)').textContent())!.split(', ');
      expect(proposed).toEqual(expect.arrayContaining(labels));
      expect(proposed).toHaveLength(entry.expect.inputs.length);
      if (!entry.expect.negative) expect(proposed.filter((l) => /negative/i.test(l))).toEqual([]);
      // A model the test catalogs do not list is warned about (it is planted by hand below); nothing else is.
      const warnings = await result.getByRole('list', { name: 'Import warnings' }).locator('li').allTextContents();
      expect(warnings.filter((w) => !/^model ".+" is in no catalog/.test(w))).toEqual([]);

      // The models the import says it needs are the graph's loaders' files; plant them where the engine looks.
      const folders = modelFolders(entry.prompt);
      const needs = (await result.getByText(/^Needs models: /).textContent())!.replace(/^Needs models: /, '').split(', ');
      expect(needs.sort()).toEqual([...folders.keys()].sort());
      const byFolder: Record<string, string[]> = {};
      for (const model of needs) (byFolder[folders.get(model)!] ??= []).push(model);
      plantModels(studio.dir, byFolder);
      expect(await shoot(shape, `import-shape-${shape}-result`)).toEqual([]);

      await page.getByRole('link', { name: 'Open the form and run it' }).click();
      const promptBox = page.getByRole('textbox', { name: prompt, exact: true });
      await promptBox.waitFor();
      expect(await promptBox.inputValue()).not.toBe('');
      if (entry.expect.negative) expect(await page.getByRole('textbox', { name: 'Negative prompt', exact: true }).isVisible()).toBe(true);
      for (const name of ['Steps', 'Width', 'Height']) expect(await page.getByRole('spinbutton', { name, exact: true }).isVisible(), name).toBe(true);
      expect(await page.getByLabel('Seed', { exact: true }).isVisible()).toBe(true);
      if (entry.expect.inputs.includes('image')) {
        // The graph's own input image is not on this engine: the user picks one on the form.
        await page.getByLabel('Image', { exact: true }).setInputFiles(SAMPLE_PNG);
        await page.getByRole('img', { name: 'Chosen image' }).waitFor();
      }
      const run = page.getByRole('button', { name: 'Run', exact: true });
      await expect.poll(() => run.isEnabled(), { timeout: 10_000 }).toBe(true);
      expect(await shoot(shape, `import-shape-${shape}-form`)).toEqual([]);

      await run.click();
      await expect.poll(() => new URL(page.url()).searchParams.get('job'), { timeout: 10_000 }).not.toBeNull();
      const promptId = new URL(page.url()).searchParams.get('job')!;
      const job = await waitForJob(studio.api, promptId, ['completed', 'error'], 60_000);
      expect(job.error ?? null, `${shape} ran on the stand-in`).toBeNull();
      expect(job.status).toBe('completed');
    }, 90_000);
  }
});
