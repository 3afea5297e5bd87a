/**
 * The Disk page in headless Chromium against a real Studio: reached from System, usage by kind,
 * a duplicated model file found and linked after confirmation, an unused partial download
 * deleted after confirmation; screenshots at 1440×900 and 390×844 with no sideways scrolling.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newSignedInPage, saveScreenshot, type TestBrowser, VIEWPORTS } from '../helpers/browser.js';
import { axeViolations, overflowing } from '../helpers/page-checks.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';
import { jobFixtures } from '../helpers/job-fixtures.js';
import { jobRecord } from '../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

const CONTENT = crypto.randomBytes(200_000);

let studio: TestStudio;
let browser: TestBrowser;

function plant(rel: string, data: Buffer): void {
  const file = path.join(studio.dir, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
}

/** Both scans run, so the screenshots show every panel filled. */
async function scanBoth(p: Page): Promise<void> {
  await p.getByRole('heading', { name: 'Usage by kind' }).waitFor();
  await p.getByRole('button', { name: /Find duplicates|Scan again/ }).click();
  await p.getByText(/files? scanned/).waitFor();
  await p.getByRole('button', { name: /Find unused files|Look again/ }).click();
  await p.getByText(/ in \d+ items?/).or(p.getByText('No unused files found.')).waitFor();
}

beforeAll(async () => {
  ensureRendererBuilt();
  studio = await startTestStudio();
  plant('models/checkpoints/sd_xl_base_1.0.safetensors', CONTENT);
  plant('models/diffusion_models/sdxl-second-copy.safetensors', CONTENT);
  plant('models/loras/abandoned-download.safetensors.part', Buffer.alloc(50_000, 1));
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await studio?.stop();
});

describe('Disk page', () => {
  it('is reached from System, links a duplicate and deletes an unused file after confirmation', async () => {
    const { context: ctx, page } = await newSignedInPage(browser, studio);
    await page.goto(`${studio.url}/system`);
    // The System page's figures add up as the Disk page's do: used, free, what the system keeps, the size.
    await page.getByText(/\d.* used · .* free( · .* reserved by the system)? · .* in all/).waitFor();
    await page.getByRole('link', { name: 'Disk page' }).click();
    await page.waitForURL((url) => url.pathname === '/disk');
    await page.getByRole('heading', { name: 'Volumes' }).waitFor();
    expect(await page.getByRole('row', { name: /Models/ }).first().textContent()).toContain('models');
    // One row per kind (logs/ and events.jsonl are both Logs), and a volume's figures add up.
    expect(await page.getByRole('row', { name: /^Logs/ }).count()).toBe(1);
    expect(await page.getByRole('row', { name: /^Logs/ }).textContent()).toMatch(/logs.*events\.jsonl/);
    expect(await page.locator('.figures').first().textContent()).toMatch(/used · .* free( · .* reserved by the system)? · .* in all/);
    // Disk has its own entry in the navigation, highlighted here.
    const entry = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Disk' });
    expect(await entry.getAttribute('class')).toMatch(/\bactive\b/);

    await page.getByRole('button', { name: 'Find duplicates' }).click();
    await page.getByText('sdxl-second-copy.safetensors', { exact: false }).first().waitFor();
    await page.getByRole('button', { name: /Link copies/ }).click();
    const linkDialog = page.getByRole('dialog', { name: 'Link the copies?' });
    await linkDialog.getByRole('button', { name: 'Link copies' }).click();
    await page.getByText('No model file is stored twice.').waitFor();
    const a = fs.statSync(path.join(studio.dir, 'models/checkpoints/sd_xl_base_1.0.safetensors'));
    const b = fs.statSync(path.join(studio.dir, 'models/diffusion_models/sdxl-second-copy.safetensors'));
    expect(a.ino).toBe(b.ino);

    await page.getByRole('button', { name: 'Find unused files' }).click();
    const partial = 'models/loras/abandoned-download.safetensors.part';
    await page.getByRole('checkbox', { name: `Choose ${partial}` }).check();
    await page.getByRole('button', { name: /Delete 1 chosen/ }).click();
    await page.getByRole('dialog', { name: 'Delete the chosen files?' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('checkbox', { name: `Choose ${partial}` }).waitFor({ state: 'detached' });
    expect(fs.existsSync(path.join(studio.dir, partial))).toBe(false);
    await ctx.close();
  });

  it('shows what a retention rule would free before it is turned on, then turns it on', async () => {
    // A finished job 40 days old with 1 MiB of output.
    fs.mkdirSync(path.join(studio.studio.config.paths.assetsOutput, 'job-old-e2e'), { recursive: true });
    fs.writeFileSync(path.join(studio.studio.config.paths.assetsOutput, 'job-old-e2e', 'out.png'), Buffer.alloc(1024 * 1024, 3));
    jobFixtures(studio.studio).insert(jobRecord({ prompt_id: 'old-e2e', status: 'completed', output_dir: 'job-old-e2e', duration: 1 }), Date.now() - 40 * 24 * 60 * 60_000);
    const { context: ctx, page } = await newSignedInPage(browser, studio);
    await page.goto(`${studio.url}/disk`);
    const panel = page.getByRole('region', { name: 'Job output retention' });
    await panel.getByRole('status').getByText(/Would free 1\.00 MB now \(1 job\)/).waitFor();
    await panel.getByRole('button', { name: 'Turn on' }).click();
    await page.getByText('Retention is on: it runs daily').waitFor();
    await panel.getByRole('button', { name: 'Turn off' }).waitFor();
    expect(fs.existsSync(path.join(studio.studio.config.paths.assetsOutput, 'job-old-e2e'))).toBe(true);
    await ctx.close();
  });

  it('fits a phone and a desktop, with screenshots', async () => {
    plant('models/vae/another-copy.safetensors', CONTENT);
    plant('models/checkpoints/stale.safetensors.part', Buffer.alloc(80_000, 2));
    for (const [label, viewport] of VIEWPORTS) {
      const { context: ctx, page: p } = await newSignedInPage(browser, studio, viewport);
      await p.goto(`${studio.url}/disk`);
      await scanBoth(p);
      const problems = [...(label === 'phone' ? await overflowing(p) : []), ...(await axeViolations(p))];
      expect(problems, `/disk at ${label} width`).toEqual([]);
      await saveScreenshot(p, `disk-${label}`);
      await ctx.close();
    }
  });
});
