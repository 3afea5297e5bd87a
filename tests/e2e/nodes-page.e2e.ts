/**
 * The Node packages page in headless Chromium against a real Studio whose stand-in imports
 * `custom_nodes` with a throwaway venv, local git repositories and hand-made wheels: reached from
 * a workflow that misses a package, search, a preview naming the commit and the Python packages,
 * Install with its log live and the engine's check, a held package refused in plain words,
 * disable, a snapshot restored after confirmation; screenshots at 1440×900 and 390×844 with no
 * sideways scrolling and no serious axe-core issue.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../server/config.js';
import { launchBrowser, newSignedInPage, PHONE, saveScreenshot, type TestBrowser } from '../helpers/browser.js';
import { FAKE_GIT_HOST, installEnv, makeEngineVenv, makeRepo, makeWheel, nodePackInit } from '../helpers/fake-node-packages.js';
import { axeViolations, overflowing } from '../helpers/page-checks.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

let studio: TestStudio;
let browser: TestBrowser;
let root: string;
let ctx: BrowserContext;
let p: Page;

/** The page at phone width with a preview open: nothing wider than the phone, no serious axe issue; both screenshots. */
async function shootPreview(name: string): Promise<void> {
  await saveScreenshot(p, `${name}-desktop`);
  const { context: phone, page: q } = await newSignedInPage(browser, studio, PHONE);
  await q.goto(`${studio.url}/nodes`);
  const panel = q.getByRole('region', { name: 'Install a package' });
  await panel.getByLabel(/Git repository URL/).fill(`${FAKE_GIT_HOST}e2e-pack.git`);
  await panel.getByRole('button', { name: 'Preview' }).click();
  await panel.getByRole('heading', { name: 'Install e2e-pack?' }).waitFor({ timeout: 60_000 });
  expect([...(await overflowing(q)), ...(await axeViolations(q))]).toEqual([]);
  await saveScreenshot(q, `${name}-phone`);
  await phone.close();
}

beforeAll(async () => {
  ensureRendererBuilt();
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-nodes-e2e-'));
  const git = path.join(root, 'git');
  const wheels = path.join(root, 'wheels');
  fs.mkdirSync(git);
  fs.mkdirSync(wheels);
  makeWheel(wheels, 'numpy', '1.0.0');
  makeWheel(wheels, 'numpy', '2.0.0');
  makeWheel(wheels, 'tinydep', '1.0');
  const python = makeEngineVenv(path.join(root, 'venv'), wheels);
  // An install script that talks slowly, so its lines can be seen arriving before it ends.
  makeRepo(git, 'e2e-pack', {
    'requirements.txt': 'tinydep==1.0\n',
    '__init__.py': nodePackInit(['E2eBlur'], 'import tinydep'),
    'install.py': 'import time\nfor i in range(6):\n    print(f"setting up step {i}", flush=True)\n    time.sleep(0.5)\n',
  });
  makeRepo(git, 'numpy-bumper', { 'requirements.txt': 'numpy>=2\n', '__init__.py': nodePackInit(['Bumper']) });
  // A workflow whose manifest names a package the engine lacks (the seeding adds the shipped ones).
  const studioDir = path.join(root, 'studio');
  const wf = path.join(studioDir, 'workflows', 'needs-pack');
  fs.cpSync(path.join(APP_ROOT, 'workflows', 'image-filter'), wf, { recursive: true });
  const manifest = fs.readFileSync(path.join(wf, 'manifest.yaml'), 'utf8');
  fs.writeFileSync(path.join(wf, 'manifest.yaml'), manifest.replace('id: image-filter', 'id: needs-pack').replace('name: Image noise and blur', 'name: Needs a pack').replace('required_nodes: []', 'required_nodes:\n  - Missing-Pack'));
  // The community node map as Studio caches it after a download (nothing is downloaded: the URL points nowhere).
  const mapUrl = 'http://127.0.0.1:9/extension-node-map.json';
  fs.mkdirSync(path.join(studioDir, 'cache'), { recursive: true });
  const mapNodes = { Bumper: { package: 'numpy-bumper', url: `${FAKE_GIT_HOST}numpy-bumper.git` } };
  fs.writeFileSync(path.join(studioDir, 'cache', 'node-map.json'), JSON.stringify({ source: mapUrl, fetched_at: new Date().toISOString(), nodes: mapNodes }));
  studio = await startTestStudio({ dir: studioDir, startEngine: true, env: { ...installEnv(git, wheels), ENGINE_PYTHON: python, PATH: process.env.PATH ?? '/usr/bin', HOME: root, NODE_MAP_URL: mapUrl } });
  await studio.studio.engineReady(60_000);
  browser = await launchBrowser();
  ({ context: ctx, page: p } = await newSignedInPage(browser, studio));
}, 180_000);

afterAll(async () => {
  await ctx?.close();
  await browser?.close();
  await studio?.stop();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

describe('Node packages page', () => {
  it('is reached from a workflow that misses a node package', async () => {
    await p.goto(`${studio.url}/home`);
    const card = p.getByRole('article', { name: 'Needs a pack' });
    await card.getByRole('link', { name: 'Install missing node packages…' }).click();
    await p.waitForURL(/\/nodes\?missing=Missing-Pack$/);
    await p.getByRole('note').getByText('Missing-Pack').waitFor();
  });

  it('lists packages with node counts and finds nodes by name', async () => {
    await p.goto(`${studio.url}/nodes`);
    const list = p.getByRole('region', { name: /^Installed/ });
    await list.getByText('Engine Core').waitFor();
    await list.getByLabel('Search packages and nodes').fill('KSampler');
    await list.getByText('KSampler', { exact: true }).waitFor();
    expect(await list.getByText('CheckpointLoaderSimple', { exact: true }).count()).toBe(0);
    await list.getByLabel('Search packages and nodes').fill('');
  });

  it('previews an install (commit, Python packages), then installs it with the log live and the engine check', async () => {
    const panel = p.getByRole('region', { name: 'Install a package' });
    await panel.getByLabel(/Git repository URL/).fill(`${FAKE_GIT_HOST}e2e-pack.git`);
    await panel.getByRole('button', { name: 'Preview' }).click();
    const preview = panel.getByRole('region', { name: 'Install e2e-pack?' });
    await preview.waitFor({ timeout: 60_000 });
    await preview.getByRole('row', { name: /tinydep added 1\.0/ }).waitFor();
    await preview.getByText(/Held as installed: numpy 1\.0\.0/).waitFor();
    expect(fs.existsSync(path.join(studio.dir, 'engine', 'custom_nodes', 'e2e-pack'))).toBe(false);
    await shootPreview('nodes-preview');
    await preview.getByRole('button', { name: 'Install' }).click();
    const log = panel.getByRole('log', { name: 'Install log' });
    // A line of the script shows while the install is still running.
    await log.getByText(/setting up step \d/).first().waitFor({ timeout: 60_000 });
    await panel.getByRole('status').getByText(/e2e-pack is installed at [0-9a-f]{12}\. The engine restarted and loaded 1 node type\./).waitFor({ timeout: 90_000 });
    expect(await log.getByText(/setting up step/).count()).toBe(6);
    const row = p.getByRole('listitem', { name: 'e2e-pack' });
    await row.getByText('1 node', { exact: true }).waitFor();
  }, 180_000);

  it('finds a package in the node map by a node type, shows its URL, and Install previews it: one that would move a held package is refused in plain words', async () => {
    const panel = p.getByRole('region', { name: 'Install a package' });
    await panel.getByLabel('Find a package by name or node type').fill('Bumper');
    const hit = panel.getByRole('list', { name: 'Packages found' }).getByRole('listitem').filter({ hasText: 'numpy-bumper' });
    await hit.getByText(`${FAKE_GIT_HOST}numpy-bumper.git`).waitFor();
    await saveScreenshot(p, 'nodes-search-desktop');
    await hit.getByRole('button', { name: 'Install numpy-bumper' }).click();
    expect(await panel.getByLabel(/Git repository URL/).inputValue()).toBe(`${FAKE_GIT_HOST}numpy-bumper.git`);
    await expect.poll(() => panel.getByRole('alert').textContent(), { timeout: 60_000 }).toMatch(/would change a package the engine holds \(numpy 1\.0\.0 → 2\.0\.0\)/);
  }, 90_000);

  it('disables a package, then restores the snapshot taken before its install', async () => {
    const row = p.getByRole('listitem', { name: 'e2e-pack' });
    await row.locator('summary').click();
    await row.getByRole('button', { name: 'Disable' }).click();
    await row.getByText('disabled', { exact: true }).waitFor({ timeout: 60_000 });
    const snaps = p.getByRole('region', { name: 'Snapshots' });
    await snaps.getByText(/before disabling e2e-pack/).waitFor();
    await saveScreenshot(p, 'nodes-desktop');
    await snaps.getByRole('listitem').filter({ hasText: 'before installing e2e-pack' }).getByRole('button', { name: 'Restore…' }).click();
    await p.getByRole('dialog', { name: 'Restore snapshot' }).getByRole('button', { name: 'Restore' }).click();
    await p.getByText(/Snapshot restored/).waitFor({ timeout: 60_000 });
    await expect.poll(() => p.getByRole('listitem', { name: 'e2e-pack' }).count(), { timeout: 30_000 }).toBe(0);
    expect(fs.existsSync(path.join(studio.dir, 'engine', 'custom_nodes', 'e2e-pack.disabled'))).toBe(false);
  }, 120_000);

  it('says plainly when an install fails', async () => {
    const panel = p.getByRole('region', { name: 'Install a package' });
    await panel.getByLabel(/Git repository URL/).fill(`${FAKE_GIT_HOST}no-such-pack.git`);
    await panel.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => panel.getByRole('alert').textContent(), { timeout: 30_000 }).toBe('git clone: the repository was not found (check the URL; a private repository needs access)');
    // Once: no second alert, no raw git text in the log; git's own words are folded away.
    expect(await p.getByRole('alert').count()).toBe(1);
    expect(await panel.getByText(/fatal:/).isVisible()).toBe(false);
    const raw = panel.locator('details', { hasText: 'What git said' });
    expect(await raw.getAttribute('open')).toBeNull();
    await raw.locator('summary').click();
    await raw.getByText(/fatal: .*no-such-pack/).waitFor();
    await saveScreenshot(p, 'nodes-failed-desktop');
    const { context: phone, page: q } = await newSignedInPage(browser, studio, PHONE);
    await q.goto(`${studio.url}/nodes`);
    await q.getByLabel('Find a package by name or node type').fill('Bumper');
    await q.getByRole('button', { name: 'Install numpy-bumper' }).waitFor();
    expect([...(await overflowing(q)), ...(await axeViolations(q))]).toEqual([]);
    await saveScreenshot(q, 'nodes-search-phone');
    await phone.close();
  });
});
