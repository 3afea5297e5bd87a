/**
 * Headless Chromium for the e2e suite: Debian's package driven by playwright-core. Without a
 * browser the suite fails (it never skips) and says how to get one.
 */
import fs from 'node:fs';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

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
