/**
 * Headless Chromium for the e2e suite: Debian's package driven by playwright-core. Without a
 * browser the suite fails (it never skips) and says how to get one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { APP_ROOT } from '../../server/config.js';
import { ensureRendererBuilt } from './renderer-build.js';
import { plantModels } from './runner.js';
import { startTestStudio, type TestStudio, type TestStudioOptions } from './studio.js';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** The first Chromium found, or an error telling a developer how to install one. */
export function findChromium(candidates: readonly string[] = CANDIDATES): string {
  const found = candidates.find((file) => fs.existsSync(file));
  if (!found) {
    throw new Error(
      `No Chromium found (looked for ${candidates.join(', ')}). The e2e suite needs a real browser: ` +
        'on Debian/Ubuntu run `sudo apt-get update && sudo apt-get install -y chromium` (CI does this in .ci/run).',
    );
  }
  return found;
}

export interface TestBrowser {
  browser: Browser;
  /** A fresh context (own cookies) with the given viewport. */
  context(viewport?: { width: number; height: number }): Promise<BrowserContext>;
  close(): Promise<void>;
}

/** Launch headless Chromium; playwright gives every launch a fresh temporary profile directory. */
export async function launchBrowser(): Promise<TestBrowser> {
  const browser = await chromium.launch({ executablePath: findChromium(), headless: true, args: CHROMIUM_ARGS });
  return {
    browser,
    context: (viewport = { width: 1366, height: 900 }) => browser.newContext({ viewport }),
    close: () => browser.close(),
  };
}

/** The two widths every page is checked and photographed at. */
export const DESKTOP = { width: 1440, height: 900 };
export const PHONE = { width: 390, height: 844 };
export const VIEWPORTS = [['desktop', DESKTOP], ['phone', PHONE]] as const;

/**
 * Resize the page and wait until its layout follows: the window reports the new width and two frames
 * have been drawn. `setViewportSize` can return before that on a loaded machine, and a check read at
 * once then measures the old layout (a loaded CI did, twice).
 */
export async function resizeTo(page: Page, viewport: { width: number; height: number }): Promise<void> {
  await page.setViewportSize(viewport);
  // Strings, because the tests' TypeScript has no DOM types; they run in the page.
  await page.waitForFunction(`window.innerWidth === ${viewport.width}`, undefined, { timeout: 10_000 });
  await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
}

/** Where the e2e suite's screenshots go (CI keeps the folder as an artifact). */
export const SHOTS = path.join(APP_ROOT, 'artifacts', 'screenshots');

/** A Studio under test, as far as signing in needs it (TestStudio and StudioProcess both fit). */
export interface SignInTarget {
  url: string;
  apiKey: string;
}

/** Sign in through the login page, as a user does, and wait to leave it. */
export async function signIn(page: Page, studio: SignInTarget): Promise<void> {
  await page.goto(`${studio.url}/login`);
  await page.getByLabel('API key').fill(studio.apiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname !== '/login');
}

/** A fresh context at the given width with one page signed in through the login page; close the context when done. */
export async function newSignedInPage(browser: TestBrowser, studio: SignInTarget, viewport = DESKTOP): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.context(viewport);
  const page = await context.newPage();
  await signIn(page, studio);
  return { context, page };
}

export interface SignedInPage {
  browser: TestBrowser;
  context: BrowserContext;
  page: Page;
  /** Closes the context and the browser (safe to call from an afterAll that ran after a failed beforeAll). */
  close(): Promise<void>;
}

export interface SignedInPageOptions {
  viewport?: { width: number; height: number };
  locale?: string;
  /** A zone far from the server's shows a time read in the wrong zone. */
  timezoneId?: string;
  /** A touch phone (playwright's contexts have neither by default). */
  hasTouch?: boolean;
  isMobile?: boolean;
}

/** A Studio whose `login()` answers the `session=...` cookie pair (TestStudio). */
export interface SessionTarget {
  url: string;
  login(): Promise<string>;
}

/** A fresh context holding the session cookie of `studio.login()` (no trip through the login page), and one page in it. */
export async function newSessionPage(browser: TestBrowser, studio: SessionTarget, options: SignedInPageOptions = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.browser.newContext({ viewport: options.viewport ?? DESKTOP, locale: options.locale ?? 'en-GB', timezoneId: options.timezoneId, hasTouch: options.hasTouch, isMobile: options.isMobile });
  const cookie = await studio.login();
  const at = cookie.indexOf('=');
  await context.addCookies([{ name: cookie.slice(0, at), value: cookie.slice(at + 1), url: studio.url }]);
  return { context, page: await context.newPage() };
}

/**
 * What most e2e files open before their tests: a headless Chromium, one context holding the
 * session cookie of `studio.login()` (no trip through the login page), and one page.
 */
export async function openSignedInPage(studio: SessionTarget, options: SignedInPageOptions = {}): Promise<SignedInPage> {
  const browser = await launchBrowser();
  try {
    const { context, page } = await newSessionPage(browser, studio, options);
    return {
      browser,
      context,
      page,
      close: async () => {
        await context.close();
        await browser.close();
      },
    };
  } catch (err) {
    await browser.close();
    throw err;
  }
}

export interface StudioPageOptions extends TestStudioOptions {
  /** Model files planted before the engine is awaited (the stand-in refuses a checkpoint its folders do not hold). */
  models?: Record<string, readonly string[]>;
  page?: SignedInPageOptions;
}

export interface StudioPage extends SignedInPage {
  studio: TestStudio;
}

/**
 * The usual e2e start: this checkout's UI built, a real Studio started (its engine ready when it
 * runs one), a signed-in page on it. `close()` closes the browser, then stops Studio.
 */
export async function openStudioPage(options: StudioPageOptions = {}): Promise<StudioPage> {
  ensureRendererBuilt();
  const studio = await startTestStudio(options);
  try {
    if (options.models) plantModels(studio.dir, options.models);
    if (options.startEngine) await studio.studio.engineReady(60_000);
    const ui = await openSignedInPage(studio, options.page);
    return {
      ...ui,
      studio,
      close: async () => {
        await ui.close();
        await studio.stop();
      },
    };
  } catch (err) {
    await studio.stop();
    throw err;
  }
}

/** A screenshot of the page into SHOTS as `<name>.png` (the whole page unless told otherwise). */
export async function saveScreenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: options.fullPage ?? true });
}
