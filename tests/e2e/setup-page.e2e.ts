/**
 * The setup page in headless Chromium against a real Studio on a first start: signing in lands
 * on it, it shows this machine (the CPU here), an install found in the home folder whose Python's
 * torch works, the releases of the engine's repository; screenshots at 1440×900 and 390×844
 * with no sideways scrolling and no accessibility violations.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newSignedInPage, saveScreenshot, type TestBrowser, VIEWPORTS } from '../helpers/browser.js';
import { ENGINE_REPO_URL, gitMappingEnv, makeEngineRepo, TORCH_SOURCE } from '../helpers/fake-engine-sources.js';
import { HOST_PYTHON } from '../helpers/setup-install.js';
import { axeViolations, overflowing } from '../helpers/page-checks.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

let root: string;
let studio: TestStudio;
let browser: TestBrowser;

/** A manual install in ~/ComfyUI with its own venv whose torch is the CPU build. */
function plantHomeInstall(home: string): void {
  const dir = path.join(home, 'ComfyUI');
  fs.mkdirSync(path.join(dir, 'comfy'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'models', 'checkpoints'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'main.py'), '');
  fs.writeFileSync(path.join(dir, 'comfyui_version.py'), '__version__ = "0.3.40"\n');
  const site = path.join(home, 'site');
  fs.mkdirSync(path.join(site, 'torch'), { recursive: true });
  fs.writeFileSync(path.join(site, 'torch', '__init__.py'), TORCH_SOURCE);
  fs.mkdirSync(path.join(dir, 'venv', 'bin'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'venv', 'bin', 'python'), `#!/bin/sh\nPYTHONPATH='${site}' exec '${HOST_PYTHON}' "$@"\n`, { mode: 0o755 });
}

async function filled(p: Page): Promise<void> {
  await p.getByRole('heading', { name: 'This machine', exact: true }).waitFor();
  await p.getByText('torch 2.5.1+cpu works').waitFor();
  await p.getByRole('option', { name: 'v0.2.0', exact: true }).waitFor({ state: 'attached' });
}

beforeAll(async () => {
  ensureRendererBuilt();
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'setup-page-'));
  const home = path.join(root, 'home');
  plantHomeInstall(home);
  const bare = makeEngineRepo(root, [{ tag: 'v0.1.0' }, { tag: 'v0.2.0' }]);
  studio = await startTestStudio({ env: { ...gitMappingEnv(bare), PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ENGINE_MODE: 'automatic', ENGINE_REPO_URL, STUDIO_NVIDIA_SMI: '/nonexistent/nvidia-smi' } });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await studio?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('Setup page', () => {
  it('opens first on a first start, and is reached from System later', async () => {
    const { context: ctx, page } = await newSignedInPage(browser, studio);
    await page.goto(`${studio.url}/home`);
    await page.waitForURL((url) => url.pathname === '/setup');
    await filled(page);
    expect(await page.getByText('Studio is running its stand-in engine').count()).toBe(1);
    await page.goto(`${studio.url}/system`);
    await page.getByRole('link', { name: 'Engine setup' }).click();
    await page.waitForURL((url) => url.pathname === '/setup');
    await page.getByRole('button', { name: 'Keep the stand-in' }).click();
    await page.getByText('Studio is running its stand-in engine').waitFor({ state: 'detached' });
    await page.goto(`${studio.url}/home`);
    await page.getByRole('heading', { name: 'Workflows' }).first().waitFor();
    expect(new URL(page.url()).pathname).toBe('/home');
    await ctx.close();
  });

  it('fits a phone and a desktop, with screenshots', async () => {
    for (const [label, viewport] of VIEWPORTS) {
      const { context: ctx, page: p } = await newSignedInPage(browser, studio, viewport);
      await p.goto(`${studio.url}/setup`);
      await filled(p);
      const problems = [...(label === 'phone' ? await overflowing(p) : []), ...(await axeViolations(p))];
      expect(problems, `/setup at ${label} width`).toEqual([]);
      await saveScreenshot(p, `setup-${label}`);
      await ctx.close();
    }
  });
});
