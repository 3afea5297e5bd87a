/**
 * "Build from source" on the LLM page (issue 47, point 2), in headless Chromium against a real
 * Studio whose release source does not answer: the page says so (not "no prebuilt build fits"),
 * asks first with this machine's estimate (time, cores, disk), shows the build as steps with the
 * raw log folded away (no live region carries it), and Cancel stops the real build script's
 * process tree, removes the half-built folder and says "Cancelled". Desktop and phone width.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RuntimesView } from '../../server/contracts/llm-runtimes.contract.js';
import { launchBrowser, newSignedInPage, PHONE, resizeTo, saveScreenshot, type TestBrowser } from '../helpers/browser.js';
import { axeViolations, overflowing } from '../helpers/page-checks.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

let dir: string;
let buildDir: string;
let studio: TestStudio;
let browser: TestBrowser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  ensureRendererBuilt();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-llm-build-e2e-'));
  buildDir = path.join(dir, 'source-build');
  studio = await startTestStudio({ dir: path.join(dir, 'studio'), env: { LLM_RELEASES_URL: 'http://127.0.0.1:9/repos/ggml-org/llama.cpp', LLM_SOURCE_BUILD_DIR: buildDir, STUDIO_NVIDIA_SMI: '/nonexistent/nvidia-smi' } });
  browser = await launchBrowser();
  ({ context, page } = await newSignedInPage(browser, studio));
}, 60_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await studio?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const runtime = () => page.getByRole('region', { name: /Runtime/ });

describe('Improve prompt without an LLM', () => {
  it('is not offered under the text fields (no 409 under each one)', async () => {
    await page.goto(`${studio.url}/run/txt2img-sdxl`);
    await page.getByLabel('Prompt', { exact: true }).fill('a lighthouse at dusk');
    // The LLM status answered (can_improve false) before the fields were judged.
    await expect.poll(async () => ((await (await studio.api('/api/admin/llm/status')).json()) as { can_improve: boolean }).can_improve).toBe(false);
    await page.waitForTimeout(500);
    expect(await page.getByRole('button', { name: /^Improve prompt/ }).count()).toBe(0);
    expect(await page.getByText(/No LLM runtime is installed/).count()).toBe(0);
  }, 30_000);
});

describe('Build from source', () => {
  it('says the release source did not answer, asks first with the estimate, and Build is not started by the question', async () => {
    await page.goto(`${studio.url}/llm`);
    await expect.poll(() => runtime().textContent(), { timeout: 15_000 }).toMatch(/nothing can be recommended without the release list/);
    expect(await runtime().textContent()).not.toMatch(/recommended below|No prebuilt build fits/i);
    expect(await runtime().textContent()).toMatch(/The release source did not answer: you can build from source instead/);
    await page.getByRole('button', { name: 'Build from source…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Build from source?' });
    await dialog.waitFor();
    const cores = os.availableParallelism();
    expect(await dialog.textContent()).toMatch(new RegExp(`about \\d+–\\d+ min using all ${cores} cores.*MB of disk while it builds.*kept.*free.*cancel at any time`, 's'));
    expect(await axeViolations(page)).toEqual([]);
    await saveScreenshot(page, 'llm-build-confirm-desktop', { fullPage: false });
    // Cancel in the question: nothing started.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    const view = (await (await studio.api('/api/admin/llm/runtimes')).json()) as RuntimesView;
    expect(view.job).toBeNull();
  }, 60_000);

  it('builds as steps with the log folded away, and Cancel stops it: "Cancelled", no half build', async () => {
    await page.getByRole('button', { name: 'Build from source…' }).click();
    await page.getByRole('dialog', { name: 'Build from source?' }).getByRole('button', { name: 'Build' }).click();
    const steps = /Fetching the source|Configuring|Compiling|Linking/;
    await expect.poll(() => runtime().textContent(), { timeout: 15_000 }).toMatch(steps);
    // The raw output is never in a live region: only the step name is a status.
    const live = await runtime().locator('[role="status"], [aria-live]').allTextContents();
    expect(live.join(' | ')).toMatch(steps);
    expect(live.every((t) => t.length < 40)).toBe(true);
    await page.getByRole('button', { name: 'Cancel build' }).click();
    await expect.poll(() => runtime().textContent(), { timeout: 15_000 }).toMatch(/Cancelled/);
    const view = (await (await studio.api('/api/admin/llm/runtimes')).json()) as RuntimesView;
    expect(view.job?.phase).toBe('cancelled');
    expect(view.installed).toEqual([]);
    expect(fs.existsSync(buildDir)).toBe(false);
    await saveScreenshot(page, 'llm-build-cancelled-desktop');
    await resizeTo(page, PHONE);
    expect([...(await overflowing(page)), ...(await axeViolations(page))]).toEqual([]);
    await saveScreenshot(page, 'llm-build-cancelled-phone');
  }, 60_000);
});

describe('A failed build on a phone', () => {
  let failing: TestStudio;
  it('shows the failure in words and its log folded, within the phone width', async () => {
    // The build folder's parent is a file: the script fails at once, its error quoting a long path.
    const blocker = path.join(dir, 'a-file-where-the-build-folder-should-be-with-a-long-name-to-wrap');
    fs.writeFileSync(blocker, '');
    failing = await startTestStudio({ dir: path.join(dir, 'failing'), env: { LLM_RELEASES_URL: 'http://127.0.0.1:9/repos/ggml-org/llama.cpp', LLM_SOURCE_BUILD_DIR: path.join(blocker, 'llama-server-source-build-folder'), STUDIO_NVIDIA_SMI: '/nonexistent/nvidia-smi' } });
    try {
      const { context: phone, page: p } = await newSignedInPage(browser, failing, PHONE);
      await p.goto(`${failing.url}/llm`);
      await p.getByRole('button', { name: 'Build from source…' }).click();
      await p.getByRole('dialog', { name: 'Build from source?' }).getByRole('button', { name: 'Build' }).click();
      const panel = p.getByRole('region', { name: /Runtime/ });
      await expect.poll(() => panel.textContent(), { timeout: 15_000 }).toMatch(/Not built.*The build failed \(exit 1\): Error: ENOTDIR: not a directory/s);
      await panel.getByText(/^Build log/).click();
      expect([...(await overflowing(p)), ...(await axeViolations(p))]).toEqual([]);
      await saveScreenshot(p, 'llm-build-failed-phone');
      await phone.close();
    } finally {
      await failing.stop();
    }
  }, 60_000);
});
