/**
 * The browser extension as a user meets it: Studio serves it as a ZIP, Chromium loads the
 * unpacked folder (`--load-extension`, new headless mode), its service worker starts, the
 * settings page asks for the Studio address and key on first use and checks them, and the panel
 * on model hub pages (served locally in place of the hub) runs lookups and catalog adds through
 * Studio against a fake model hub.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page, type Worker } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, findChromium } from '../helpers/browser.js';
import { seedHub } from '../helpers/fake-hub-data.js';
import { startFakeHub, type FakeHub } from '../helpers/fake-hub-server.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

let studio: TestStudio;
let hub: FakeHub;
let context: BrowserContext;
let worker: Worker;
let scratch: string;

beforeAll(async () => {
  hub = await startFakeHub();
  seedHub(hub);
  studio = await startTestStudio({ env: { MODELHUB_BASE_URL: hub.url } });
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-ext-'));
  const res = await studio.api('/api/admin/system/browser-extension');
  expect(res.status).toBe(200);
  const zip = path.join(scratch, 'extension.zip');
  fs.writeFileSync(zip, Buffer.from(await res.arrayBuffer()));
  const dir = path.join(scratch, 'extension');
  const unzip = spawnSync('unzip', ['-q', zip, '-d', dir], { encoding: 'utf8' });
  expect(unzip.status, unzip.stderr).toBe(0);
  context = await chromium.launchPersistentContext(path.join(scratch, 'profile'), {
    executablePath: findChromium(),
    // Extensions need a full browser: the new headless mode is one, the old headless shell is not.
    headless: false,
    ignoreDefaultArgs: ['--disable-extensions'],
    args: [...CHROMIUM_ARGS, '--headless=new', '--disable-features=DisableLoadExtensionCommandLineSwitch', `--disable-extensions-except=${dir}`, `--load-extension=${dir}`],
  });
  worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 30_000 }));
  // The model hub's pages, served here: the content script runs on them as on the real ones.
  await context.route('https://civitai.com/**', (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>hub page</title><main>hub</main>' }));
});

afterAll(async () => {
  await context?.close();
  await studio?.stop();
  await hub?.close();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

interface DomNode {
  nodeName: string;
  nodeValue?: string;
  backendNodeId: number;
  attributes?: string[];
  children?: DomNode[];
  shadowRoots?: DomNode[];
}

/**
 * The panel as a person sees it. It lives in a closed shadow root, which neither the page's
 * scripts nor Playwright's selectors enter; the DevTools protocol's DOM (with `pierce`) does.
 * Clicks go through the mouse at the button's position: trusted, like a person's.
 */
async function personalPanel(page: Page): Promise<{ status: string; press(name: string): Promise<void> }> {
  const cdp = await page.context().newCDPSession(page);
  const { root } = (await cdp.send('DOM.getDocument', { depth: -1, pierce: true })) as { root: DomNode };
  const all: DomNode[] = [];
  const walk = (node: DomNode) => {
    all.push(node);
    for (const child of [...(node.children ?? []), ...(node.shadowRoots ?? [])]) walk(child);
  };
  walk(root);
  const text = (node: DomNode): string => (node.nodeValue ?? '') + (node.children ?? []).map(text).join('');
  const classOf = (node: DomNode) => node.attributes?.[node.attributes.indexOf('class') + 1] ?? '';
  const status = all.find((n) => n.nodeName === 'DIV' && n.attributes?.includes('class') && classOf(n).split(' ').includes('out'));
  return {
    status: status ? text(status) : '',
    async press(name: string) {
      const button = all.find((n) => n.nodeName === 'BUTTON' && text(n) === name);
      if (!button) throw new Error(`no panel button "${name}"`);
      const { model } = (await cdp.send('DOM.getBoxModel', { backendNodeId: button.backendNodeId })) as { model: { content: number[] } };
      const [x1, y1, , , x3, y3] = model.content as [number, number, number, number, number, number];
      await page.mouse.click((x1 + x3) / 2, (y1 + y3) / 2);
    },
  };
}

/** The panel's status text once it matches `pattern`. */
async function panelStatus(page: Page, pattern: RegExp): Promise<string> {
  let last = '';
  await expect.poll(async () => (last = (await personalPanel(page)).status), { timeout: 15_000 }).toMatch(pattern);
  return last;
}

describe('the browser extension', () => {
  it('loads unpacked: its service worker runs from the manifest Studio served', async () => {
    expect(worker.url()).toMatch(/^chrome-extension:\/\/[a-p]{32}\/service-worker\.js$/);
    const manifest = (await worker.evaluate('chrome.runtime.getManifest()')) as { manifest_version: number; name: string };
    expect(manifest).toMatchObject({ manifest_version: 3, name: 'Studio for the model hub' });
  });

  it('asks for Studio on first use, then checks the address and key', async () => {
    const id = new URL(worker.url()).host;
    const page = await context.newPage();
    await page.goto(`chrome-extension://${id}/popup.html`);
    await expect.poll(() => page.getByRole('status').textContent()).toMatch(/First use/);
    await page.getByLabel('Studio address').fill(new URL(studio.url).host);
    await page.getByLabel('API key').fill('wrong-key-wrong-key');
    await page.getByRole('button', { name: 'Save and test' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toMatch(/refused the API key/);
    await page.getByLabel('API key').fill(studio.apiKey);
    await page.getByRole('button', { name: 'Save and test' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toMatch(/Connected to Studio/);
    const stored = await worker.evaluate("chrome.storage.local.get(['studioUrl'])");
    expect(stored).toEqual({ studioUrl: new URL(studio.url).origin });
    await page.close();
  });

  it("adds a model page's version to Studio's catalog from the page panel", async () => {
    const page = await context.newPage();
    await page.goto('https://civitai.com/models/11?modelVersionId=101');
    await expect.poll(async () => (await personalPanel(page).then((p) => p.press("Add to Studio's catalog")).then(() => true, () => false)), { timeout: 15_000 }).toBe(true);
    await panelStatus(page, /Added .*Juggernaut XL.* to checkpoints/);
    const catalog = (await (await studio.api('/api/admin/models')).json()) as { categories: Array<{ models: Array<{ file: string }> }> };
    expect(catalog.categories.flatMap((c) => c.models.map((m) => m.file))).toContain('juggernautXL_v9.safetensors');
    await page.close();
  });

  it("gives the page's own scripts no way to press the panel's buttons", async () => {
    const page = await context.newPage();
    await page.goto('https://civitai.com/images/5001');
    await expect.poll(() => page.evaluate("Boolean(document.getElementById('studio-extension-panel'))"), { timeout: 15_000 }).toBe(true);
    // The attack, run by the hub page itself (main world): find the panel's buttons and click them.
    const reached = await page.evaluate(`(() => {
      const host = document.getElementById('studio-extension-panel');
      const root = host && host.shadowRoot;
      const buttons = root ? [...root.querySelectorAll('button')] : [];
      for (const b of buttons) {
        b.click();
        b.dispatchEvent(new MouseEvent('click', { bubbles: true, composed: true }));
      }
      if (host) host.dispatchEvent(new MouseEvent('click', { bubbles: true, composed: true }));
      return { host: Boolean(host), buttons: buttons.length };
    })()`);
    expect(reached).toEqual({ host: true, buttons: 0 });
    expect((await personalPanel(page)).status).toBe('');
    expect((await studio.api('/api/admin/presets/modelhub-5001')).status).toBe(404);
    await page.close();
  });

  it('looks up the generation data of an image page and makes a preset of it', async () => {
    const page = await context.newPage();
    await page.goto('https://civitai.com/images/5001');
    await expect.poll(async () => (await personalPanel(page).then((p) => p.press('Look up generation data')).then(() => true, () => false)), { timeout: 15_000 }).toBe(true);
    await panelStatus(page, /^Prompt: /);
    await (await personalPanel(page)).press('Make a preset');
    await panelStatus(page, /Preset “modelhub-5001” saved in Studio \(workflow txt2img-sdxl-lora\)/);
    expect((await studio.api('/api/admin/presets/modelhub-5001')).status).toBe(200);
    await page.close();
  });
});
