/**
 * The home page (issue #30) in a real browser against a real Studio with the stand-in engine:
 * the workflow cards use the width of a wide screen and break long file names only at their
 * separators (defect 10); the first-run guide checks itself off from real state (improvement 13).
 * axe-core at desktop and phone width; screenshots under `artifacts/screenshots/`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../server/config.js';
import { launchBrowser, newSessionPage, type TestBrowser } from '../helpers/browser.js';
import { axeViolations, overflowing } from '../helpers/page-checks.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

const SHOTS = process.env.HOME_SHOTS ?? path.join(APP_ROOT, 'artifacts', 'screenshots');
const DESKTOP = { width: 1366, height: 900 };
const WIDE = { width: 1920, height: 1080 };
const PHONE = { width: 390, height: 844 };
const LONG_FILE = 'juggernautXL_ragnarokBy_v13RundiffusionPhoto2_fp16_pruned_emaonly.safetensors';

let studio: TestStudio;
let dir: string | undefined;
let browser: TestBrowser;

async function signedInPage(viewport: { width: number; height: number }): Promise<Page> {
  return (await newSessionPage(browser, studio, { viewport })).page;
}

/** Resize, and wait until the shell has switched to (or from) its phone layout: in between, the desktop navigation squeezes the content. */
async function resize(page: Page, viewport: { width: number; height: number }): Promise<void> {
  await page.setViewportSize(viewport);
  await page.locator(viewport.width <= 760 ? '.shell.phone' : '.shell:not(.phone)').waitFor();
}

/** The page at a width: a full-page screenshot, and what is wrong with it (overflow on a phone, axe at every width). */
async function check(page: Page, name: string, viewport: { width: number; height: number }): Promise<string[]> {
  await resize(page, viewport);
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  return [...(viewport.width < 500 ? await overflowing(page) : []), ...(await axeViolations(page))];
}

/**
 * Where each shown file name wraps: for every line break inside a `.file` element, the characters
 * either side of it. Measured from the rendered glyph boxes, so CSS and `<wbr>` both count.
 */
function fileNameBreaks(page: Page): Promise<Array<{ file: string; before: string; after: string }>> {
  return page.evaluate(`(() => {
    const out = [];
    for (const el of Array.from(document.querySelectorAll('main .file'))) {
      const chars = [];
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (let i = 0; i < node.data.length; i++) {
          const range = document.createRange();
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          const box = range.getClientRects()[0];
          if (box) chars.push({ ch: node.data[i], top: Math.round(box.top) });
        }
      }
      for (let i = 1; i < chars.length; i++) {
        if (chars[i].top > chars[i - 1].top + 2) out.push({ file: el.textContent, before: chars[i - 1].ch, after: chars[i].ch });
      }
    }
    return out;
  })()`);
}

describe('Home page: workflow cards', () => {
  beforeAll(async () => {
    ensureRendererBuilt();
    // No model files, and one more workflow whose model has a name longer than a card is wide.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-home-e2e-'));
    const wf = path.join(dir, 'workflows', 'long-names');
    fs.cpSync(path.join(APP_ROOT, 'workflows', 'image-filter'), wf, { recursive: true });
    const manifest = fs.readFileSync(path.join(wf, 'manifest.yaml'), 'utf8');
    fs.writeFileSync(path.join(wf, 'manifest.yaml'), manifest.replace('id: image-filter', 'id: long-names').replace('name: Image noise and blur', 'name: Long names').replace('required_models: []', `required_models:\n  - ${LONG_FILE}`));
    studio = await startTestStudio({ dir });
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await studio?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('uses the width of a wide screen and breaks file names only at their separators', async () => {
    const page = await signedInPage(WIDE);
    await page.goto(`${studio.url}/home`);
    await page.getByRole('heading', { name: 'Long names' }).waitFor();
    const fill = await page.evaluate<{ content: number; cards: number }>(`(() => {
      const main = document.querySelector('main');
      const style = getComputedStyle(main);
      const right = main.getBoundingClientRect().right - parseFloat(style.paddingRight);
      const cards = Array.from(main.querySelectorAll('article.card')).map((c) => c.getBoundingClientRect().right);
      return { content: Math.round(right), cards: Math.round(Math.max(...cards)) };
    })()`);
    // Five workflows on a 1920 px screen: the first row of cards reaches the right edge of the content.
    expect(fill.cards).toBeGreaterThanOrEqual(fill.content - 2);
    expect(await check(page, 'home-cards-wide', WIDE)).toEqual([]);

    for (const viewport of [PHONE, DESKTOP]) {
      await resize(page, viewport);
      const breaks = await fileNameBreaks(page);
      expect(breaks.filter((b) => b.file === LONG_FILE).length, `${LONG_FILE} wraps at ${viewport.width} px`).toBeGreaterThan(0);
      // A line ends after a separator, or the next starts with the extension's dot.
      for (const b of breaks) expect(`${b.before}|${b.after}`, `${b.file} wraps between "${b.before}" and "${b.after}"`).toMatch(/^[_/\-\s]\||\|\.$/);
    }
    expect(await check(page, 'home-cards-phone', PHONE)).toEqual([]);
    expect(await check(page, 'home-cards-desktop', DESKTOP)).toEqual([]);
    await page.context().close();
  });
});
