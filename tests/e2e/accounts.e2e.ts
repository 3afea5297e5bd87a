/**
 * Accounts in the browser (issue 43), in headless Chromium against a real Studio: the owner adds
 * a person on the Users page; that person signs in on the login page with name and password,
 * sees no admin pages in the navigation, makes a personal key (shown once, copyable), sees it
 * listed and revokes it; the owner filters the Events page by that person. Each page has no
 * serious axe-core issue, nothing wider than a phone, and screenshots at 1440×900 and 390×844.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newSignedInPage, PHONE, resizeTo, saveScreenshot, DESKTOP, type TestBrowser } from '../helpers/browser.js';
import { axeViolations, overflowing } from '../helpers/page-checks.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';
import { jobFixtures } from '../helpers/job-fixtures.js';
import { jobRecord } from '../helpers/runner.js';

let studio: TestStudio;
let browser: TestBrowser;
let owner: { context: BrowserContext; page: Page };
let member: { context: BrowserContext; page: Page } | null = null;

const PASSWORD = 'pat-password-0123';

/** No serious axe issue at either width, nothing wider than a phone; a screenshot at each. */
async function checkBoth(page: Page, name: string): Promise<void> {
  for (const [label, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
    await resizeTo(page, viewport);
    const problems = [...(label === 'phone' ? await overflowing(page) : []), ...(await axeViolations(page))];
    expect(problems, `${name} at ${label} width`).toEqual([]);
    await saveScreenshot(page, `${name}-${label}`);
  }
  await resizeTo(page, DESKTOP);
}

beforeAll(async () => {
  ensureRendererBuilt();
  studio = await startTestStudio();
  browser = await launchBrowser();
  owner = await newSignedInPage(browser, studio);
});

afterAll(async () => {
  await member?.context.close();
  await owner?.context.close();
  await browser?.close();
  await studio?.stop();
});

describe('the Users page', () => {
  it('lets the owner add a person with a role and quotas', async () => {
    const { page } = owner;
    await page.goto(`${studio.url}/users`);
    await page.getByRole('heading', { name: 'Users' }).waitFor();
    await page.getByText('Nobody has been added').waitFor();
    await page.getByRole('button', { name: 'Add a person' }).click();
    const form = page.getByRole('form', { name: 'Add a person' });
    await form.getByLabel('Name', { exact: true }).fill('Pat');
    await form.getByLabel('Role').selectOption('member');
    await form.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await form.getByLabel('Jobs per hour').fill('5');
    await form.getByRole('button', { name: 'Add' }).click();
    const row = page.getByRole('table', { name: 'People' }).getByRole('row', { name: /Pat/ });
    await row.getByText('5/h').waitFor();
    await checkBoth(page, 'users');
  });
});

describe('a member', () => {
  it('signs in with name and password and sees no admin pages', async () => {
    const context = await browser.context(DESKTOP);
    const page = await context.newPage();
    member = { context, page };
    await page.goto(`${studio.url}/login`);
    await page.getByLabel('Name').fill('pat');
    await page.getByLabel('Password').fill('wrong password here');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Wrong name or password');
    await saveScreenshot(page, 'login-name-password-desktop');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname !== '/login');
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByText('Signed in as Pat (member)').waitFor();
    await nav.getByRole('link', { name: 'My keys' }).waitFor();
    for (const hidden of ['Users', 'System', 'Engines', 'Node packages', 'Chat bot']) expect(await nav.getByRole('link', { name: hidden, exact: true }).count(), hidden).toBe(0);
    // The home page asks nothing a member may not read: no first-run guide, no refusal shown.
    await page.getByRole('heading', { name: 'Workflows' }).first().waitFor();
    expect(await page.getByRole('heading', { name: 'Get started' }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Import a workflow' }).count()).toBe(0);
    expect(await page.getByText(/Not allowed/).count()).toBe(0);
    await saveScreenshot(page, 'member-home-desktop');
  });

  it('makes a key shown once with a copy button, sees it listed, and revokes it', async () => {
    const { page, context } = member!;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: studio.url });
    await page.goto(`${studio.url}/keys`);
    await page.getByText('You have no personal keys.').waitFor();
    const scopes = await page.getByLabel('Scope').locator('option').allTextContents();
    expect(scopes.map((s) => s.split(':')[0])).toEqual(['read', 'run']);
    await page.getByLabel('Name').fill('laptop script');
    await page.getByRole('button', { name: 'Make key' }).click();
    const key = (await page.getByLabel('New key', { exact: true }).textContent())!.trim();
    expect(key).toMatch(/^stk_[\w-]{43}$/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(key);
    const row = page.getByRole('table', { name: 'My keys' }).getByRole('row', { name: /laptop script/ });
    await row.getByText('never').waitFor();
    expect((await studio.api('/api/me', { headers: { 'X-API-Key': key } })).status).toBe(200);
    await checkBoth(page, 'my-keys');
    await row.getByRole('button', { name: 'Revoke laptop script' }).click();
    await page.getByRole('dialog', { name: 'Revoke key' }).getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('You have no personal keys.').waitFor();
    expect((await studio.api('/api/me', { headers: { 'X-API-Key': key } })).status).toBe(401);
  });
});

describe('the Events page', () => {
  it("filters by person for the owner", async () => {
    const { page } = owner;
    await page.goto(`${studio.url}/events`);
    await page.getByLabel('Person').selectOption({ label: 'Pat' });
    const log = page.getByRole('list', { name: 'Event log' });
    await log.getByText('Pat signed in from').first().waitFor();
    await expect.poll(async () => (await log.getByRole('listitem').allTextContents()).every((t) => t.includes('Pat'))).toBe(true);
    await checkBoth(page, 'events-by-person');
  });
});

describe('the History page', () => {
  it("shows the owner an Owner column and filter once someone else's job exists; the member sees only theirs", async () => {
    const { users: people } = (await (await studio.api('/api/admin/users')).json()) as { users: Array<{ id: string; name: string }> };
    const pat = people.find((p) => p.name === 'Pat')!;
    const done = { status: 'completed' as const, workflow_id: 'txt2img-sdxl', workflow_name: 'SDXL text to image', queued_at: null, started_at: null, finished_at: null, duration: 3 };
    jobFixtures(studio.studio).insert(jobRecord({ ...done, prompt_id: 'owners-job', params: { positive: 'the owner’s lighthouse' } }));
    jobFixtures(studio.studio).insert(jobRecord({ ...done, prompt_id: 'pats-job', params: { positive: 'Pat’s red fox' }, owner_id: pat.id }));
    const { page } = owner;
    await page.goto(`${studio.url}/jobs`);
    const table = page.getByRole('table').filter({ hasText: 'red fox' });
    await table.getByRole('columnheader', { name: 'Owner' }).waitFor();
    await table.getByRole('row').filter({ hasText: 'red fox' }).getByRole('cell', { name: 'Pat', exact: true }).waitFor();
    await page.getByLabel('Filter by owner').selectOption({ label: 'Pat' });
    await expect.poll(async () => table.getByRole('row').filter({ hasText: 'lighthouse' }).count()).toBe(0);
    await table.getByRole('row').filter({ hasText: 'red fox' }).waitFor();
    await checkBoth(page, 'history-owners');
    const { page: patPage } = member!;
    await patPage.goto(`${studio.url}/jobs`);
    await patPage.getByText('Pat’s red fox').first().waitFor();
    expect(await patPage.getByText('the owner’s lighthouse').count()).toBe(0);
  });
});
