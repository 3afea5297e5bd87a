/**
 * Word when a job is done (issue 47), against local receivers: an ntfy-compatible server gets the
 * finished job as its thumbnail with the title, text and a link to the job's page; a webhook gets
 * signed JSON and its deliveries are retried with the house backoff until it takes them; each
 * person's targets hear only of their own work, and the box's events (downloads, low disk) only
 * reach the owner's and admins' targets; the Test button answers with what the receiver said.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewTargetAnswer, NotifyTarget, TestAnswer } from '../../../server/contracts/notifications.contract.js';
import { startNtfy, startWebhook, type Receiver } from '../../helpers/notify-receivers.js';
import { addPerson, as, json, signIn } from '../../helpers/people.js';
import { execute, plantModels, SHIPPED_MODELS, waitForJob } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';

let t: TestStudio;
let ntfy: Receiver;
let hook: Receiver;
/** The waits asked for between attempts (the test's sleep takes none of them). */
const waits: number[] = [];

beforeAll(async () => {
  ntfy = await startNtfy();
  hook = await startWebhook();
  t = await startTestStudio({ startEngine: true, notifySleep: async (ms) => void waits.push(ms) });
  plantModels(t.dir, SHIPPED_MODELS);
  await t.studio.engineReady();
}, 60_000);

afterAll(async () => {
  await t?.stop();
  await ntfy?.close();
  await hook?.close();
});

const addTarget = async (body: Record<string, unknown>, auth?: { cookie: string }): Promise<NewTargetAnswer> => {
  const init = json('POST', body);
  const res = auth ? await as(t, auth, '/api/notifications/targets', init) : await t.api('/api/notifications/targets', init);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as NewTargetAnswer;
};
const targets = async (): Promise<NotifyTarget[]> => ((await (await t.api('/api/notifications/targets')).json()) as { targets: NotifyTarget[] }).targets;

describe('notifications', () => {
  it('sends a finished job to ntfy as its thumbnail, with the title, text and a link to its page', async () => {
    const made = await addTarget({ kind: 'ntfy', url: `${ntfy.url}/studio-jobs`, events: ['job.completed'], token: 'tk_test' });
    expect(made.secret).toBeNull();
    expect(made.target).toMatchObject({ kind: 'ntfy', name: 'ntfy studio-jobs', has_token: true, enabled: true });
    const { prompt_id } = await execute(t.api, 'txt2img-sdxl', { params: { positive: 'a lighthouse', steps: 2 } });
    await waitForJob(t.api, prompt_id);
    const got = await until(() => ntfy.received.find((r) => String(r.headers.click ?? '').endsWith(`/jobs/${prompt_id}`)), 'the ntfy publish', 20_000);
    expect(got.method).toBe('PUT');
    expect(got.path).toBe('/studio-jobs');
    expect(got.headers.filename).toBe(`${prompt_id}.jpg`);
    expect(got.body.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(got.headers.title).toMatch(/is done$/);
    expect(String(got.headers.message)).toMatch(/^Job completed in/);
    expect(got.headers.authorization).toBe('Bearer tk_test');
    expect(got.headers.click).toMatch(/^http:\/\//);
    const [target] = await targets();
    expect(target!.deliveries[0]).toMatchObject({ event: 'job.completed', status: 'delivered', attempts: 1, http_status: 200 });
    await t.api(`/api/notifications/targets/${made.target.id}`, { method: 'DELETE' });
  }, 60_000);

  it('signs webhooks and retries a failing receiver with the house backoff until it takes the message', async () => {
    const made = await addTarget({ kind: 'webhook', url: `${hook.url}/hooks/studio`, name: 'Home box', events: ['job.completed'] });
    expect(made.secret).toMatch(/^whsec_/);
    hook.secret = made.secret;
    hook.failNext(2);
    waits.length = 0;
    const before = hook.received.length;
    const { prompt_id } = await execute(t.api, 'txt2img-sdxl', { params: { positive: 'a harbour', steps: 2 } });
    await waitForJob(t.api, prompt_id);
    await until(() => hook.received.length - before >= 3 || undefined, 'three attempts', 20_000);
    const attempts = hook.received.slice(before);
    expect(attempts.every((r) => r.signed)).toBe(true);
    const body = JSON.parse(attempts[2]!.body.toString('utf8')) as { event: string; link: string; data: { prompt_id: string }; thumbnail: string };
    expect(body).toMatchObject({ event: 'job.completed', data: { prompt_id } });
    expect(body.link).toMatch(new RegExp(`/jobs/${prompt_id}$`));
    expect(body.thumbnail).toMatch(/^data:image\/jpeg;base64,\/9j\//);
    expect(waits).toEqual([5_000, 10_000]);
    const delivery = await until(async () => (await targets()).find((x) => x.id === made.target.id)?.deliveries.find((d) => d.status === 'delivered'), 'the delivery recorded');
    expect(delivery).toMatchObject({ attempts: 3, http_status: 200 });
    // The secret is shown once, never listed.
    expect(JSON.stringify(await targets())).not.toContain(made.secret!);
    await t.api(`/api/notifications/targets/${made.target.id}`, { method: 'DELETE' });
  }, 60_000);

  it("tells each person only of their own work, and only the owner and admins of the box's events", async () => {
    const bob = await addPerson(t, 'bob', 'member');
    const cookie = await signIn(t, bob);
    const bobs = await addTarget({ kind: 'ntfy', url: `${ntfy.url}/bob`, events: ['job.completed', 'disk.low_space'] }, { cookie });
    await addTarget({ kind: 'ntfy', url: `${ntfy.url}/owner`, events: ['disk.low_space'] });
    // Nobody else sees Bob's target.
    expect((await targets()).map((x) => x.id)).not.toContain(bobs.target.id);
    expect((await t.api(`/api/notifications/targets/${bobs.target.id}`, json('PATCH', { name: 'x' }))).status).toBe(404);
    const ownJob = await execute(t.api, 'txt2img-sdxl', { params: { positive: 'the owner', steps: 2 } });
    const bobJob = (await (await as(t, { cookie }, '/api/run/txt2img-sdxl/execute', { method: 'POST', body: (() => {
      const form = new FormData();
      form.append('params', JSON.stringify({ positive: 'bob', steps: 2 }));
      return form;
    })() })).json()) as { prompt_id: string };
    await waitForJob(t.api, ownJob.prompt_id);
    await waitForJob(t.api, bobJob.prompt_id);
    await until(() => ntfy.received.find((r) => r.path === '/bob'), "Bob's job reached Bob", 20_000);
    t.studio.events.emit('disk.low_space', 'warning', 'Only 1 GB free', { free_bytes: 1e9 });
    await until(() => ntfy.received.find((r) => r.path === '/owner'), 'low disk reached the owner', 20_000);
    await new Promise((r) => setTimeout(r, 300));
    const toBob = ntfy.received.filter((r) => r.path === '/bob');
    expect(toBob).toHaveLength(1);
    expect(toBob[0]!.headers.click).toMatch(new RegExp(`/jobs/${bobJob.prompt_id}$`));
  }, 60_000);

  it('answers the Test button with what the receiver said, and does not retry a refusal', async () => {
    const made = await addTarget({ kind: 'webhook', url: `${hook.url}/hooks/test`, events: ['job.failed'] });
    hook.secret = made.secret;
    const ok = (await (await t.api(`/api/notifications/targets/${made.target.id}/test`, { method: 'POST' })).json()) as TestAnswer;
    expect(ok.delivery).toMatchObject({ event: 'test', status: 'delivered', attempts: 1, http_status: 200 });
    hook.failNext(1, 404);
    const refused = (await (await t.api(`/api/notifications/targets/${made.target.id}/test`, { method: 'POST' })).json()) as TestAnswer;
    expect(refused.delivery).toMatchObject({ status: 'failed', attempts: 1, http_status: 404 });
    expect(refused.delivery.detail).toMatch(/no such topic or path/);
    // What the receiver wrote is not shown: a target may point at any service on the LAN.
    expect(refused.delivery.detail).not.toContain('try later');
    const events = (await (await t.api('/api/admin/events?types=notify.failed')).json()) as Array<{ data: { target_id: string } }>;
    expect(events.map((e) => e.data.target_id)).toContain(made.target.id);
  });

  it('refuses bad targets with a clear 400', async () => {
    const post = (body: unknown) => t.api('/api/notifications/targets', json('POST', body));
    expect(((await (await post({ kind: 'ntfy', url: 'ftp://x/y', events: ['job.completed'] })).json()) as { detail: string }).detail).toMatch(/url.*http/);
    expect((await post({ kind: 'ntfy', url: `${ntfy.url}/x`, events: [] })).status).toBe(400);
    expect((await post({ kind: 'sms', url: `${ntfy.url}/x`, events: ['job.completed'] })).status).toBe(400);
    expect((await post({ kind: 'ntfy', url: `${ntfy.url}/x`, events: ['job.exploded'] })).status).toBe(400);
  });
});
