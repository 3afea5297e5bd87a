/**
 * A first start in headless Chromium (issue 47, point 9): the setup page comes first without
 * Workflows flashing before it; the release list being offline is said in grey beside the install
 * button, not as a red error; "Keep the stand-in" takes the user to Workflows with the guide's
 * engine step done; on a phone the guide's "Sign in from your phone" step is done (it is that
 * phone) and shows no QR code. Screenshots at desktop and phone width.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SetupReport } from '../../server/contracts/setup.contract.js';
import { launchBrowser, newSignedInPage, PHONE, saveScreenshot, type TestBrowser } from '../helpers/browser.js';
import { axeViolations, overflowing } from '../helpers/page-checks.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

let root: string;
let studio: TestStudio;
let browser: TestBrowser;

// Runs in the page before its own scripts: notes whether the Workflows heading was ever drawn.
const WATCH_WORKFLOWS = `
  window.__sawWorkflows = false;
  new MutationObserver(() => {
    if (document.getElementById('home-title')) window.__sawWorkflows = true;
  }).observe(document, { childList: true, subtree: true });
`;

beforeAll(async () => {
  ensureRendererBuilt();
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'first-start-'));
  fs.mkdirSync(path.join(root, 'home'));
  // Nothing answers on port 9: the engine's release list is offline.
  studio = await startTestStudio({ env: { HOME: path.join(root, 'home'), ENGINE_MODE: 'automatic', ENGINE_REPO_URL: 'http://127.0.0.1:9/comfyanonymous/ComfyUI', STUDIO_NVIDIA_SMI: '/nonexistent/nvidia-smi' } });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await studio?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('First start', () => {
  it('opens Engine setup before Workflows renders, says the release list is offline in grey, and Keep the stand-in goes to Workflows', async () => {
    const { context, page } = await newSignedInPage(browser, studio);
    await context.addInitScript(WATCH_WORKFLOWS);
    await page.goto(`${studio.url}/`);
    await page.waitForURL((url) => url.pathname === '/setup');
    await page.getByRole('heading', { name: 'This machine', exact: true }).waitFor();
    expect(await page.evaluate('window.__sawWorkflows')).toBe(false);

    const offline = page.getByText("Can't reach the release list (offline?)");
    await offline.waitFor();
    // Grey beside the install button, not a red alert nobody asked for.
    expect(await offline.getAttribute('class')).toMatch(/muted/);
    expect(await page.locator('.error-text').count()).toBe(0);
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await saveScreenshot(page, 'first-start-setup-desktop');

    await page.getByRole('button', { name: 'Keep the stand-in' }).click();
    await page.waitForURL((url) => url.pathname === '/home');
    const engineStep = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Set up the engine' }) });
    await expect.poll(() => engineStep.textContent(), { timeout: 15_000 }).toMatch(/Done.*You kept the stand-in engine/s);
    const report = (await (await studio.api('/api/admin/setup')).json()) as SetupReport;
    expect(report).toMatchObject({ first_start: false, standin_kept: true });
    await saveScreenshot(page, 'first-start-kept-standin-desktop');

    // A later start lands on Workflows: no more first start.
    await page.goto(`${studio.url}/`);
    await page.getByRole('heading', { name: 'Workflows' }).first().waitFor();
    expect(new URL(page.url()).pathname).toBe('/home');
    await context.close();
  }, 60_000);

  it('on a phone: the phone step is done and shows no QR code; the pages fit', async () => {
    const { context, page } = await newSignedInPage(browser, studio, PHONE);
    await page.goto(`${studio.url}/home`);
    const phoneStep = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Sign in from your phone' }) });
    await expect.poll(() => phoneStep.textContent(), { timeout: 15_000 }).toMatch(/Done.*signed in on this device/s);
    expect(await phoneStep.getByRole('img', { name: /QR code/ }).count()).toBe(0);
    expect(await phoneStep.getByRole('checkbox').count()).toBe(0);
    expect([...(await overflowing(page)), ...(await axeViolations(page))]).toEqual([]);
    await saveScreenshot(page, 'first-start-guide-phone');
    await page.goto(`${studio.url}/setup`);
    await page.getByText("Can't reach the release list (offline?)").waitFor();
    expect([...(await overflowing(page)), ...(await axeViolations(page))]).toEqual([]);
    await saveScreenshot(page, 'first-start-setup-phone');
    await context.close();
  }, 60_000);
});
