/**
 * The LLM made whole, in headless Chromium against a real Studio: a llama.cpp runtime installed
 * from a fake release source holding the real llama-server the suite builds, a tiny model written
 * by Studio's own GGUF writer; the Run page's "Improve prompt" streams from that real server into
 * the field and Undo puts the text back; a chat on the LLM page is kept across a reload; the page
 * at desktop and phone width (screenshots, no sideways scrolling, no serious axe-core issue).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../server/config.js';
import type { RuntimesView } from '../../server/contracts/llm-runtimes.contract.js';
import { writeTinyGguf } from '../../server/llm/runtimes/tiny-gguf.js';
import { launchBrowser, newSignedInPage, saveScreenshot, type TestBrowser, VIEWPORTS } from '../helpers/browser.js';
import { releaseTarGz, startFakeReleaseSource, type FakeReleaseSource } from '../helpers/fake-llama-releases.js';
import { axeViolations, overflowing } from '../helpers/page-checks.js';
import { freePort } from '../helpers/ports.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';
import { plantModels, SHIPPED_MODELS } from '../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

const found = spawnSync(process.execPath, [path.join(APP_ROOT, 'scripts', 'build-llama-server.mjs'), '--cached'], { encoding: 'utf8' });
const binary = found.status === 0 ? found.stdout.trim().split('\n').pop()! : null;

let studio: TestStudio;
let source: FakeReleaseSource;
let browser: TestBrowser;
let context: BrowserContext;
let page: Page;
let dir: string;

beforeAll(async () => {
  if (!binary) return;
  ensureRendererBuilt();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-llm-e2e-'));
  source = await startFakeReleaseSource([{ tag: 'b9000', assets: [{ name: 'llama-b9000-bin-ubuntu-x64.tar.gz', content: releaseTarGz(path.dirname(binary), 'b9000') }] }]);
  studio = await startTestStudio({ dir, startEngine: true, env: { LLM_RELEASES_URL: source.url, LLM_PORT: String(await freePort()), STUDIO_NVIDIA_SMI: '/nonexistent/nvidia-smi', STANDIN_STEP_MS: '20' } });
  await studio.studio.engineReady(60_000);
  plantModels(dir, SHIPPED_MODELS);
  const res = await studio.api('/api/admin/llm/runtimes/install', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
  expect(res.status, await res.clone().text()).toBe(202);
  for (;;) {
    const view = (await (await studio.api('/api/admin/llm/runtimes')).json()) as RuntimesView;
    if (view.job?.phase === 'failed') throw new Error(view.job.error ?? 'install failed');
    if (view.job?.phase === 'installed') break;
    await new Promise((r) => setTimeout(r, 300));
  }
  fs.mkdirSync(studio.studio.config.paths.llmModels, { recursive: true });
  await writeTinyGguf(path.join(studio.studio.config.paths.llmModels, 'tiny.gguf'));
  // Small and fast on a shared machine: two threads; the tiny model's byte-level vocabulary makes
  // one token of every byte, so the prompt-help system prompt alone is ~800 tokens, and the server
  // splits its context over 4 slots: 4096 leaves each request 1024.
  await studio.api('/api/admin/llm/config', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ctx_size: 4096, threads: 2 }) });
  browser = await launchBrowser();
  ({ context, page } = await newSignedInPage(browser, studio));
}, 180_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await studio?.stop();
  await source?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the LLM, made whole', () => {
  it('improves a Run-page prompt with the real llama-server, streamed into the field, and undoes it', async () => {
    if (!binary) expect.fail(found.stderr.trim() || 'llama-server is not built (node scripts/build-llama-server.mjs builds it)');
    await page.goto(`${studio.url}/run/txt2img-sdxl`);
    const prompt = page.getByLabel('Prompt', { exact: true });
    await prompt.fill('a lighthouse at dusk');
    await page.getByRole('button', { name: 'Improve prompt: Prompt' }).click();
    // The server starts on demand (the installed runtime, the only model on disk), then streams.
    await expect.poll(async () => prompt.inputValue(), { timeout: 60_000 }).not.toBe('a lighthouse at dusk');
    await page.getByRole('button', { name: 'Undo improvement: Prompt' }).waitFor({ timeout: 60_000 });
    expect((await prompt.inputValue()).length).toBeGreaterThan(0);
    await saveScreenshot(page, 'run-improve-prompt-desktop', { fullPage: false });
    await page.getByRole('button', { name: 'Undo improvement: Prompt' }).click();
    expect(await prompt.inputValue()).toBe('a lighthouse at dusk');
    const status = (await (await studio.api('/api/admin/llm/status')).json()) as { running: boolean; active_model: string };
    expect(status).toMatchObject({ running: true, active_model: 'tiny.gguf' });
  }, 120_000);

  it('keeps a chat across a reload, chat first on the page at both widths', async () => {
    await page.goto(`${studio.url}/llm`);
    const chat = page.getByRole('region', { name: 'Chat' });
    await chat.getByRole('button', { name: 'New chat' }).click();
    await chat.getByRole('button', { name: 'Settings' }).click();
    await chat.getByLabel('Max tokens').fill('4');
    await chat.getByLabel('Message').fill('Name a colour');
    await chat.getByLabel('Message').press('Enter');
    await chat.getByRole('article', { name: 'Assistant' }).waitFor({ timeout: 60_000 });
    await chat.getByRole('button', { name: 'Send' }).waitFor({ timeout: 60_000 });
    await page.reload();
    const again = page.getByRole('region', { name: 'Chat' });
    await expect.poll(() => again.getByRole('combobox', { name: 'Chat' }).locator('option:checked').textContent()).toBe('Name a colour');
    await again.getByRole('article', { name: 'You' }).getByText('Name a colour').waitFor();
    await page.getByRole('region', { name: 'Runtime llama.cpp' }).getByText('b9000 · cpu').waitFor();
    for (const [label, viewport] of VIEWPORTS) {
      const { context: ctx, page: p } = await newSignedInPage(browser, studio, viewport);
      await p.goto(`${studio.url}/llm`);
      await p.getByRole('region', { name: 'Chat' }).getByRole('article', { name: 'You' }).first().waitFor();
      await p.getByRole('region', { name: 'Models' }).getByText(/fits the GPU|CPU only|partly on GPU/).first().waitFor();
      // The chat is the first panel, whatever the width.
      const [chatBox, runtimeBox] = await Promise.all([p.getByRole('region', { name: 'Chat' }).boundingBox(), p.getByRole('region', { name: 'Runtime llama.cpp' }).boundingBox()]);
      expect(label === 'phone' ? chatBox!.y < runtimeBox!.y : chatBox!.x < runtimeBox!.x).toBe(true);
      const problems = [...(label === 'phone' ? await overflowing(p) : []), ...(await axeViolations(p))];
      expect(problems, `/llm at ${label} width`).toEqual([]);
      await saveScreenshot(p, `llm-whole-${label}`);
      await ctx.close();
    }
    await studio.api('/api/admin/llm/stop', { method: 'POST' });
  }, 120_000);
});
