/**
 * Issue 46 on the job page, in a real browser against a real Studio with the stand-in: the lock
 * (engine, node package, Python skipped, model files, workflow, seeds) and "same as this
 * Studio"; then, with the node package moved to another commit and the LoRA gone, Run again
 * lists exactly those two differences with their fixes instead of running. And the history
 * page's "Run again from a file" reads an output PNG's lock. axe at desktop and phone width;
 * screenshots under artifacts/screenshots/provenance/.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStudioPage, resizeTo, SHOTS as ALL_SHOTS, DESKTOP, PHONE, type StudioPage } from '../helpers/browser.js';
import { axeViolations, overflowing } from '../helpers/page-checks.js';
import { installNodePackage, nodePackageOrigin, outputPng, plantLoraModels, runLoraJob } from '../helpers/provenance-setup.js';
import type { TestStudio } from '../helpers/studio.js';

const SHOTS = path.join(ALL_SHOTS, 'provenance');
let ui: StudioPage;
let studio: TestStudio;
let page: Page;
let root: string;
let origin: { url: string; commits: [string, string] };
let jobId: string;

async function checkBoth(name: string): Promise<{ axe: string[]; wide: string[] }> {
  fs.mkdirSync(SHOTS, { recursive: true });
  await resizeTo(page, DESKTOP);
  await page.screenshot({ path: path.join(SHOTS, `${name}-desktop.png`), fullPage: true });
  const axe = await axeViolations(page);
  await resizeTo(page, PHONE);
  await page.screenshot({ path: path.join(SHOTS, `${name}-phone.png`), fullPage: true });
  axe.push(...(await axeViolations(page)));
  const wide = await overflowing(page);
  await resizeTo(page, DESKTOP);
  return { axe, wide };
}

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-provenance-e2e-'));
  origin = nodePackageOrigin(root);
  const dir = path.join(root, 'studio');
  installNodePackage(dir, origin.url, origin.commits[1]);
  plantLoraModels(dir);
  ui = await openStudioPage({ dir, startEngine: true, env: { STANDIN_STEP_MS: '5', STANDIN_NODE_MS: '5' }, page: { viewport: DESKTOP } });
  ({ studio, page } = ui);
  jobId = await runLoraJob(studio);
}, 120_000);

afterAll(async () => {
  await ui?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('the job page (issue 46)', () => {
  it('shows the lock and that this Studio is the same', async () => {
    await page.goto(`${studio.url}/jobs/${jobId}`);
    const panel = page.getByRole('region', { name: 'What it ran on' });
    await panel.waitFor();
    const text = (await panel.textContent()) ?? '';
    expect(text).toContain('same as this Studio');
    expect(text).toContain('demo-pack');
    expect(text).toContain(origin.commits[1].slice(0, 8));
    expect(text).toContain('style.safetensors');
    expect(text).toContain('the stand-in engine has no Python environment');
    expect(await checkBoth('job-lock-same')).toEqual({ axe: [], wide: [] });
  });

  it('Run again lists the two differences with their fixes instead of running', async () => {
    execFileSync('git', ['checkout', '-q', origin.commits[0]], { cwd: path.join(studio.dir, 'engine', 'custom_nodes', 'demo-pack') });
    fs.rmSync(path.join(studio.dir, 'models', 'loras', 'style.safetensors'));
    await page.goto(`${studio.url}/jobs/${jobId}`);
    await page.getByRole('region', { name: 'What it ran on' }).waitFor();
    await page.getByRole('button', { name: 'Run again', exact: true }).first().click();
    const diffs = page.getByRole('status', { name: 'Differences with this Studio' });
    await diffs.waitFor();
    expect(await diffs.getByRole('listitem').count()).toBe(2);
    const text = (await diffs.textContent()) ?? '';
    expect(text).toContain('Node package at another commit');
    expect(text).toContain('Model missing');
    expect(await page.getByRole('button', { name: `Put demo-pack at ${origin.commits[1].slice(0, 7)}` }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Run anyway' }).count()).toBe(1);
    expect(page.url()).toContain(jobId);
    expect(await checkBoth('job-lock-differences')).toEqual({ axe: [], wide: [] });
  });

  it('Run again from a file on the history page reads an output PNG', async () => {
    const png = await outputPng(studio, jobId);
    const file = path.join(root, 'out.png');
    fs.writeFileSync(file, png);
    await page.goto(`${studio.url}/jobs`);
    await page.getByRole('region', { name: 'Run again from a file' }).waitFor();
    await page.locator('input[type=file]').setInputFiles(file);
    await page.getByRole('status', { name: 'Differences with this Studio' }).waitFor();
    expect(await checkBoth('run-from-file')).toEqual({ axe: [], wide: [] });
  });
});
