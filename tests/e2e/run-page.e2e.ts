/**
 * The Run page and presets (issue #30: defects 1, 9 and the Run page's part of 10; improvements 11
 * and 14) in a real browser against a real Studio with the stand-in engine: placeholder questions
 * asked inline on the Run page and written with the "Save as preset" dialog; the preset run panel
 * showing the prompt it fills and the seed the preset stored; progress whose step text sits beside
 * its own bar and whose bar is full the moment it says "Finished"; after Run the job in view
 * without the title under the header; recent results beside the form whose settings load back;
 * "Run ×N" with new seeds; Ctrl+Enter runs; Esc closes the dialogs. Every page is checked with axe
 * and screenshotted at desktop and phone width (no sideways scrolling on the phone).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../server/config.js';
import { launchBrowser, newSessionPage, type TestBrowser, resizeTo } from '../helpers/browser.js';
import { axeViolations, overflowing } from '../helpers/page-checks.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';
import { execute, plantModels, SHIPPED_MODELS, waitForJob } from '../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

const SHOTS = process.env.SHOTS_DIR ?? path.join(APP_ROOT, 'artifacts', 'screenshots');
const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };
const WF = 'txt2img-sdxl';

let studio: TestStudio;
let browser: TestBrowser;
let context: BrowserContext;
let page: Page;

interface JobRow {
  prompt_id: string;
  status: string;
  workflow_id: string | null;
  params: Record<string, unknown>;
  seeds: Record<string, number>;
}

/** Screenshots at desktop and phone width; axe's serious and critical findings at both, and what is wider than the phone. */
async function checkBoth(name: string): Promise<string[]> {
  fs.mkdirSync(SHOTS, { recursive: true });
  const problems: string[] = [];
  // A page from its top; with a modal dialog open, what the screen shows (the dialog scrolls on its own).
  const modal = await page.evaluate<boolean>("!!document.querySelector('dialog[open]')");
  const shoot = async (file: string) => {
    if (!modal) await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: path.join(SHOTS, file), fullPage: !modal });
  };
  await resizeTo(page, DESKTOP);
  await shoot(`${name}-desktop.png`);
  problems.push(...(await axeViolations(page)).map((v) => `desktop: ${v}`));
  await resizeTo(page, PHONE);
  await shoot(`${name}-phone.png`);
  problems.push(...(await axeViolations(page)).map((v) => `phone: ${v}`));
  problems.push(...(await overflowing(page)).map((v) => `phone: ${v}`));
  await resizeTo(page, DESKTOP);
  return problems;
}

async function jobsOf(workflowId: string): Promise<JobRow[]> {
  const rows: JobRow[] = [];
  for (const route of ['/api/admin/queue', `/api/admin/history?workflow_id=${workflowId}&limit=200`]) rows.push(...((await (await studio.api(route)).json()) as JobRow[]));
  return rows.filter((j) => j.workflow_id === workflowId);
}

/** The prompt id in the page's `?job=` (set when a run starts). */
async function jobInUrl(): Promise<string | null> {
  return new URL(page.url()).searchParams.get('job');
}

/** Wait until the window stops scrolling (a smooth scroll ended): its final scrollY. */
async function settledScroll(): Promise<number> {
  return page.evaluate<number>(`new Promise((resolve) => {
    let last = -1; let still = 0;
    const tick = () => { if (window.scrollY === last) still++; else { still = 0; last = window.scrollY; } if (still >= 20) resolve(last); else requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  })`);
}

async function openRun(query = ''): Promise<void> {
  await page.goto(`${studio.url}/run/${WF}${query}`);
  await page.getByRole('heading', { level: 1, name: 'SDXL text to image' }).waitFor();
}

describe('Run page and presets (#30)', () => {
  beforeAll(async () => {
    ensureRendererBuilt();
    // Steps slow enough that a running job can be watched, short runs where it does not matter.
    studio = await startTestStudio({ startEngine: true, env: { STANDIN_STEP_MS: '150', STANDIN_NODE_MS: '5' } });
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

  it('asks a placeholder question inline on the Run page and runs the chosen answer (defect 1)', async () => {
    await openRun();
    await page.getByRole('textbox', { name: 'Prompt', exact: true }).fill('a [[style:oil|watercolor]] painting of a fox');
    await page.getByRole('spinbutton', { name: 'Steps' }).first().fill('2');
    const asked = page.getByRole('group', { name: 'Questions in Prompt' });
    await asked.waitFor();
    await asked.getByRole('combobox', { name: 'style' }).selectOption('watercolor');
    expect(await asked.getByText('a watercolor painting of a fox').isVisible()).toBe(true);
    expect(await checkBoth('run-placeholder-inline')).toEqual([]);

    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await expect.poll(jobInUrl).not.toBeNull();
    const job = (await waitForJob(studio.api, (await jobInUrl())!, ['completed'], 60_000)) as unknown as JobRow;
    expect(job.params.positive).toBe('a watercolor painting of a fox');
  });

  it('writes questions with the "Save as preset" dialog, previews each answer, and Esc closes it (defect 1, improvement 14)', async () => {
    await openRun();
    await page.getByRole('textbox', { name: 'Prompt', exact: true }).fill('an oil painting of a fox');
    await page.getByRole('button', { name: 'Save as preset…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Save as preset' });
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.isVisible()).toBe(false);

    await page.getByRole('button', { name: 'Save as preset…' }).click();
    await dialog.waitFor();
    await dialog.getByRole('textbox', { name: 'Name' }).fill('Fox styles');
    await dialog.getByRole('textbox', { name: 'Description' }).fill('A fox in a few styles');
    const text = dialog.getByRole('textbox', { name: 'Prompt of the preset', exact: true });
    // Select "fox" as a person would with the mouse: the selection, then the event the textarea fires.
    await text.evaluate((el: { value: string; focus(): void; setSelectionRange(a: number, b: number): void; dispatchEvent(e: unknown): boolean }) => {
      const at = el.value.indexOf('fox');
      el.focus();
      el.setSelectionRange(at, at + 3);
      el.dispatchEvent(new (globalThis as unknown as { Event: new (t: string, o: object) => unknown }).Event('select', { bubbles: true }));
    });
    await dialog.getByRole('group', { name: 'Prompt', exact: true }).getByRole('button', { name: 'Turn the selected words into a question' }).click();
    await dialog.getByRole('textbox', { name: 'Question', exact: true }).fill('Animal');
    await dialog.getByRole('textbox', { name: 'Other answers (comma-separated)' }).fill('owl, heron');
    await dialog.getByRole('button', { name: 'Add the question' }).click();
    expect(await text.inputValue()).toBe('an oil painting of a [[Animal:fox|owl|heron]]');

    const preview = dialog.getByRole('region', { name: 'Preview: the prompt for each answer' });
    expect(await preview.getByRole('listitem').allTextContents()).toEqual([
      'Animal = fox: an oil painting of a fox',
      'Animal = owl: an oil painting of a owl',
      'Animal = heron: an oil painting of a heron',
    ]);
    await dialog.getByRole('combobox', { name: 'Steps: fixed or asked' }).selectOption('asked');
    await dialog.getByRole('textbox', { name: 'Steps: answers (comma-separated)' }).fill('2, 3');
    // Its answers box has a visible label too (#47 point 11), not only a placeholder.
    expect(await dialog.getByText('Answers (comma-separated)', { exact: true }).isVisible()).toBe(true);
    await dialog.getByRole('combobox', { name: 'Seed: fixed or asked' }).selectOption('asked');
    expect(await checkBoth('run-save-preset-dialog')).toEqual([]);
    await dialog.getByRole('button', { name: 'Save preset' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);

    const detail = (await (await studio.api('/api/admin/presets/fox-styles')).json()) as { name: string; description: string; workflow: { workflow_id: string; params: Record<string, unknown> } };
    expect(detail).toMatchObject({ name: 'Fox styles', description: 'A fox in a few styles', workflow: { workflow_id: WF } });
    expect(detail.workflow.params).toMatchObject({ positive: 'an oil painting of a [[Animal:fox|owl|heron]]', steps: '[[Steps:2|3]]', seed: -1 });
    const questions = (await (await studio.api('/api/admin/presets/fox-styles/placeholders')).json()) as Array<{ question: string; options: string[] }>;
    expect(questions.map((q) => [q.question, q.options])).toEqual([
      ['Animal', ['fox', 'owl', 'heron']],
      ['Steps', ['2', '3']],
    ]);
  });

  it('"Make a preset" on a job page opens the same dialog on the job\'s settings instead of saving at once (defect 1)', async () => {
    const { prompt_id } = await execute(studio.api, WF, { params: { positive: 'a kingfisher on a branch', steps: 2, seed: 31337 } });
    await waitForJob(studio.api, prompt_id, ['completed'], 60_000);
    const before = ((await (await studio.api('/api/admin/presets')).json()) as unknown[]).length;
    await page.goto(`${studio.url}/jobs/${prompt_id}`);
    await page.getByRole('button', { name: 'Make a preset' }).click();
    const dialog = page.getByRole('dialog', { name: 'Save as preset' });
    await dialog.waitFor();
    expect(await dialog.getByRole('textbox', { name: 'Prompt of the preset', exact: true }).inputValue()).toBe('a kingfisher on a branch');
    expect(((await (await studio.api('/api/admin/presets')).json()) as unknown[]).length).toBe(before);
    expect(await checkBoth('job-make-preset-dialog')).toEqual([]);
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.isVisible()).toBe(false);
  });

  it('the preset run panel shows the prompt it fills and the seed the preset stored; Ctrl+Enter runs it (defect 10)', async () => {
    const created = await studio.api('/api/admin/presets', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'dusk', name: 'Dusk', workflow: { workflow_id: WF, params: { positive: 'a [[animal:fox|owl]] at dusk', steps: 2, seed: 4242 } } }),
    });
    expect(created.status).toBe(200);
    await page.goto(`${studio.url}/presets`);
    await page.getByRole('article', { name: 'Dusk' }).getByRole('button', { name: 'Run' }).click();
    const panel = page.getByRole('region', { name: 'Run Dusk' });
    await panel.getByText('a fox at dusk').waitFor();
    expect(await panel.getByRole('spinbutton', { name: /Seed/ }).inputValue()).toBe('4242');
    await panel.getByRole('radio', { name: 'owl' }).check();
    expect(await panel.getByText('a owl at dusk').isVisible()).toBe(true);
    expect(await checkBoth('presets-run-panel')).toEqual([]);

    const before = (await jobsOf(WF)).length;
    await panel.getByRole('radio', { name: 'owl' }).focus();
    await page.keyboard.press('Control+Enter');
    await expect.poll(async () => (await jobsOf(WF)).length).toBe(before + 1);
    const started = (await jobsOf(WF)).find((j) => j.params.positive === 'a owl at dusk');
    expect(started?.seeds.seed).toBe(4242);
    await waitForJob(studio.api, started!.prompt_id, ['completed'], 60_000);
    // The card lists what a run asks; the job page and the history say the job came from the preset (#47).
    expect(await page.getByRole('list', { name: 'Questions Dusk asks' }).getByRole('listitem').allTextContents()).toEqual(['animal']);
    await page.goto(`${studio.url}/jobs/${started!.prompt_id}`);
    await page.getByText('from preset Dusk').waitFor();
    await page.goto(`${studio.url}/jobs`);
    await page.getByRole('row').filter({ hasText: 'a owl at dusk' }).getByText('from preset Dusk').waitFor();
  });

  it('Esc closes the shared confirmation dialog (improvement 14)', async () => {
    await page.goto(`${studio.url}/presets`);
    await page.getByRole('article', { name: 'Dusk' }).getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete preset' });
    await confirm.waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => confirm.isVisible()).toBe(false);
    expect((await studio.api('/api/admin/presets/dusk')).status).toBe(200);
  });

  it('shows "Step x/y" beside its own bar, not beside the whole job\'s percent (defect 9)', async () => {
    await openRun();
    await page.getByRole('spinbutton', { name: 'Steps' }).first().fill('8');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const steps = page.getByRole('progressbar', { name: 'Job progress: steps of the running node' });
    await steps.waitFor({ timeout: 30_000 });
    const seen = await steps.evaluate((el: { getAttribute(n: string): string | null }) => ({ now: el.getAttribute('aria-valuenow'), text: el.getAttribute('aria-valuetext') }));
    const match = /^Step (\d+)\/(\d+)$/.exec(seen.text ?? '');
    expect(match, `steps bar text: ${seen.text}`).not.toBeNull();
    expect(Number(seen.now)).toBe(Math.round((Number(match![1]) / Number(match![2])) * 100));
    expect(await checkBoth('run-progress')).toEqual([]);
    await waitForJob(studio.api, (await jobInUrl())!, ['completed'], 60_000);
  });

  it('fills the job bar the moment it says Finished (defect 9)', async () => {
    await openRun();
    await page.getByRole('spinbutton', { name: 'Steps' }).first().fill('4');
    // Record the bar at the moment the words first say "Finished" (before any transition could run).
    await page.evaluate(`(() => {
      window.__atFinish = null;
      const observer = new MutationObserver(() => {
        const stage = document.querySelector('[aria-label="Job"]');
        const bar = stage && stage.querySelector('[role=progressbar][aria-label="Job progress"]');
        if (!bar || window.__atFinish !== null || !/Finished/.test(stage.textContent)) return;
        window.__atFinish = parseFloat(getComputedStyle(bar.firstElementChild).width) / bar.clientWidth;
        observer.disconnect();
      });
      observer.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
    })()`);
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByText(/Finished in/).waitFor({ timeout: 60_000 });
    expect(await page.evaluate<number | null>('window.__atFinish')).toBeGreaterThan(0.995);
    expect(await checkBoth('run-finished')).toEqual([]);
  });

  it('after Run keeps the title below the header on a desktop and brings the preview above the fold on a phone (defect 9)', async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      await resizeTo(page, viewport);
      await openRun();
      await page.getByRole('spinbutton', { name: 'Steps' }).first().fill('20');
      await page.getByRole('textbox', { name: 'Prompt', exact: true }).focus();
      await page.evaluate('window.scrollTo(0, 0)');
      // Clicked where it is, as a person does after scrolling to it: the page's own scroll is what is measured.
      await page.getByRole('button', { name: 'Run', exact: true }).evaluate((b: { click(): void }) => b.click());
      await expect.poll(jobInUrl).not.toBeNull();
      await settledScroll();
      const boxes = await page.evaluate<{ header: number; title: number; stage: number; preview: number; height: number }>(`(() => {
        const header = document.querySelector('header').getBoundingClientRect().bottom;
        const stage = document.querySelector('[aria-label="Job"]');
        const preview = stage.querySelector('figure, img');
        return { header, title: document.querySelector('h1').getBoundingClientRect().top, stage: stage.getBoundingClientRect().top, preview: preview.getBoundingClientRect().bottom, height: window.innerHeight };
      })()`);
      if (viewport === DESKTOP) expect(boxes.title, 'the title is not under the header').toBeGreaterThanOrEqual(boxes.header);
      expect(boxes.stage, 'the job starts below the header').toBeGreaterThanOrEqual(boxes.header);
      expect(boxes.preview, 'the preview ends above the fold').toBeLessThanOrEqual(boxes.height);
      await waitForJob(studio.api, (await jobInUrl())!, ['completed'], 60_000);
    }
    await resizeTo(page, DESKTOP);
  });

  it('runs with Ctrl+Enter from the prompt (improvement 14)', async () => {
    await openRun();
    await page.getByRole('spinbutton', { name: 'Steps' }).first().fill('2');
    await page.getByRole('textbox', { name: 'Prompt', exact: true }).fill('a heron by a lake');
    await page.keyboard.press('Control+Enter');
    await expect.poll(jobInUrl).not.toBeNull();
    const job = (await waitForJob(studio.api, (await jobInUrl())!, ['completed'], 60_000)) as unknown as JobRow;
    expect(job.params.positive).toBe('a heron by a lake');
  });

  it('keeps a strip of recent results whose settings load into the form, and runs ×N with new seeds (improvement 11)', async () => {
    const a = await execute(studio.api, WF, { params: { positive: 'strip one: a red kite', steps: 2, seed: 111 } });
    const b = await execute(studio.api, WF, { params: { positive: 'strip two: a grey heron', steps: 3, seed: 222 } });
    await waitForJob(studio.api, a.prompt_id, ['completed'], 60_000);
    await waitForJob(studio.api, b.prompt_id, ['completed'], 60_000);
    await openRun();
    const strip = page.getByRole('region', { name: /Recent results/ });
    const kite = strip.getByRole('button', { name: /seed 111$/ });
    await kite.waitFor();
    await kite.click();
    await expect.poll(() => page.getByRole('textbox', { name: 'Prompt', exact: true }).inputValue()).toBe('strip one: a red kite');
    expect(await page.getByRole('spinbutton', { name: 'Steps' }).first().inputValue()).toBe('2');
    expect(await page.getByRole('spinbutton', { name: 'Seed' }).inputValue()).toBe('111');
    expect(await kite.getAttribute('aria-pressed')).toBe('true');
    expect(await jobInUrl()).toBe(a.prompt_id);
    expect(await checkBoth('run-recent-results')).toEqual([]);

    const before = new Set((await jobsOf(WF)).map((j) => j.prompt_id));
    await page.getByRole('combobox', { name: 'How many runs (each with a new seed)' }).selectOption('3');
    await page.getByRole('button', { name: 'Run ×3' }).click();
    await expect.poll(async () => (await jobsOf(WF)).filter((j) => !before.has(j.prompt_id)).length).toBe(3);
    const fresh = (await jobsOf(WF)).filter((j) => !before.has(j.prompt_id));
    for (const j of fresh) await waitForJob(studio.api, j.prompt_id, ['completed'], 60_000);
    const done = (await jobsOf(WF)).filter((j) => !before.has(j.prompt_id));
    expect(done.every((j) => j.params.positive === 'strip one: a red kite')).toBe(true);
    expect(new Set(done.map((j) => j.seeds.seed)).size).toBe(3);
    expect(done.map((j) => j.seeds.seed)).not.toContain(111);
    // The new results join the strip.
    await expect.poll(() => strip.getByRole('button').count(), { timeout: 20_000 }).toBeGreaterThanOrEqual(5);
  });
});
