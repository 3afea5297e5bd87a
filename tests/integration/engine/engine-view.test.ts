/**
 * `GET /api/engine/view` with real Studios: from the folders Studio shares with the stand-in it
 * starts (read from disk, found by the marker probe), through an external engine whose folders are
 * its own (streamed through), after `forget()`, and with the engine gone. Plus Range on the other
 * file routes built on `sendFileResponse`.
 *
 * Order matters within each describe (one Studio each): the last two tests of the first make the
 * engine forget its folders and then stop it, so they stay last.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStandinEngine, type StandinEngine } from '../../../server/standin/standin.server.js';
import { USER_FILE_HEADERS } from '../../../server/http/file-response.js';
import { execute, jobRecord, SAMPLE_PNG, uploadSample, waitForJob } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';
import { jobFixtures } from '../../helpers/job-fixtures.js';
import { textOf, withoutText } from '../../helpers/provenance-setup.js';

type Api = TestStudio['api'];

const viewUrl = (query: Record<string, string>) => `/api/engine/view?${new URLSearchParams(query).toString()}`;

async function bytes(res: Response): Promise<Buffer> {
  return Buffer.from(await res.arrayBuffer());
}

async function detail(res: Response): Promise<unknown> {
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return ((await res.json()) as { detail?: unknown }).detail;
}

/** GET with a `Range` header. */
const ranged = (api: Api, url: string, range: string) => api(url, { headers: { Range: range } });

/** Files whose name says they are leftovers of the shared-folder probe. */
function probeLeftovers(dirs: string[]): string[] {
  return dirs.flatMap((dir) => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.startsWith('.studio-shared-probe-')) : []));
}

describe('an engine that shares Studio\'s folders (the stand-in Studio starts)', () => {
  let t: TestStudio;
  let input: string;
  let output: string;

  beforeAll(async () => {
    t = await startTestStudio({ startEngine: true });
    input = path.join(t.dir, 'assets', 'input');
    output = path.join(t.dir, 'assets', 'output');
    await t.studio.engineReady();
    await until(() => t.studio.sharedFolders.folders.length === 3, 'the shared folder probe');
  });

  afterAll(async () => {
    await t?.stop();
  });

  it('finds input, output and temp shared and leaves no marker file behind', () => {
    expect(t.studio.sharedFolders.folders).toEqual(['input', 'output', 'temp']);
    expect(probeLeftovers([input, output, path.join(t.dir, 'engine', 'temp', 'temp')])).toEqual([]);
  });

  it('serves an uploaded image from disk, byte for byte, with the file headers', async () => {
    const name = await uploadSample(t.api, 'shared view.png');
    const res = await t.api(viewUrl({ filename: name, type: 'input' }));
    expect(res.status).toBe(200);
    expect((await bytes(res)).equals(fs.readFileSync(SAMPLE_PNG))).toBe(true);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="${name}"`);
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('content-length')).toBe(String(fs.statSync(SAMPLE_PNG).size));
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    // Only the from-disk path sends validators: the engine (and the stand-in) send no ETag.
    expect(res.headers.get('etag')).toMatch(/^"/);
    // type defaults to input.
    const byDefault = await t.api(viewUrl({ filename: name }));
    expect(byDefault.status).toBe(200);
    expect((await bytes(byDefault)).equals(fs.readFileSync(SAMPLE_PNG))).toBe(true);
  });

  it('answers a Range with 206 and exactly those bytes', async () => {
    const data = randomBytes(700_000);
    fs.writeFileSync(path.join(output, 'seek.mp4'), data);
    const url = viewUrl({ filename: 'seek.mp4', type: 'output' });
    const res = await ranged(t.api, url, 'bytes=300000-300099');
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes 300000-300099/${data.length}`);
    expect(res.headers.get('content-type')).toBe('video/mp4');
    expect((await bytes(res)).equals(data.subarray(300_000, 300_100))).toBe(true);

    const tail = await ranged(t.api, url, 'bytes=-1000');
    expect(tail.status).toBe(206);
    expect((await bytes(tail)).equals(data.subarray(data.length - 1000))).toBe(true);

    const beyond = await ranged(t.api, url, `bytes=${data.length}-`);
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${data.length}`);
    expect(typeof (await detail(beyond))).toBe('string');
  });

  it('resolves an [output] annotation and a subfolder like the engine', async () => {
    fs.mkdirSync(path.join(output, 'job-a', 'final'), { recursive: true });
    fs.writeFileSync(path.join(output, 'job-a', 'final', 'x.png'), 'in the job folder');
    const res = await t.api(viewUrl({ filename: 'x.png [output]', type: 'input', subfolder: 'job-a/final' }));
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('in the job folder');
    expect(res.headers.get('content-disposition')).toBe('inline; filename="x.png"');
  });

  it('offers a non-ASCII name in the filename* form', async () => {
    fs.writeFileSync(path.join(input, 'ノイズ.png'), 'noise');
    const res = await t.api(viewUrl({ filename: 'ノイズ.png', type: 'input' }));
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('noise');
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="___.png"; filename*=UTF-8''${encodeURIComponent('ノイズ.png')}`);
  });

  it('refuses paths that leave the folder with a JSON 400', async () => {
    const dotdot = await t.api(viewUrl({ filename: '../x', type: 'input' }));
    expect(dotdot.status).toBe(400);
    expect(typeof (await detail(dotdot))).toBe('string');
    const escaping = await t.api(viewUrl({ filename: 'secret.txt', type: 'input', subfolder: '../..' }));
    expect(escaping.status).toBe(400);
    expect(typeof (await detail(escaping))).toBe('string');
  });

  it('does not follow a link planted in the output folder to the session secret', async () => {
    fs.symlinkSync(path.join(t.dir, '.session_secret'), path.join(t.studio.config.paths.assetsOutput, 'planted.png'));
    const res = await t.api(viewUrl({ filename: 'planted.png', type: 'output' }));
    expect(res.status).toBe(404);
    expect(Buffer.from(await res.arrayBuffer()).equals(fs.readFileSync(path.join(t.dir, '.session_secret')))).toBe(false);
  });

  it('answers a missing file with a JSON 404', async () => {
    const res = await t.api(viewUrl({ filename: 'not-here.png', type: 'output' }));
    expect(res.status).toBe(404);
    expect(await detail(res)).toEqual(expect.stringContaining('not-here.png'));
  });

  it('sends an HTML file as octet-stream under the sandbox CSP', async () => {
    fs.writeFileSync(path.join(input, 'page.html'), '<script>alert(document.cookie)</script>');
    const res = await t.api(viewUrl({ filename: 'page.html', type: 'input' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-security-policy')).toBe(USER_FILE_HEADERS['Content-Security-Policy']);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.text()).toBe('<script>alert(document.cookie)</script>');
  });

  it('honours Range on GET /api/run/result/{id}', async () => {
    const data = randomBytes(100_000);
    fs.mkdirSync(path.join(output, 'range-job', 'final'), { recursive: true });
    fs.writeFileSync(path.join(output, 'range-job', 'final', 'clip.mp4'), data);
    jobFixtures(t.studio).insert(
      jobRecord({
        prompt_id: 'range-job-1',
        workflow_id: 'image-filter',
        workflow_name: 'Range check',
        output_dir: 'range-job',
        status: 'completed',
        duration: 1,
        output: { filename: 'clip.mp4', subfolder: 'range-job/final', type: 'output' },
      }),
    );
    const res = await ranged(t.api, '/api/run/result/range-job-1', 'bytes=5000-5999');
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes 5000-5999/${data.length}`);
    expect(res.headers.get('content-type')).toBe('video/mp4');
    expect((await bytes(res)).equals(data.subarray(5000, 6000))).toBe(true);
  });

  it('honours Range on GET /api/admin/assets/file', async () => {
    const data = randomBytes(50_000);
    fs.writeFileSync(path.join(output, 'asset-range.webm'), data);
    const res = await ranged(t.api, '/api/admin/assets/file?type=outputs&path=asset-range.webm', 'bytes=49000-');
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes 49000-49999/${data.length}`);
    expect((await bytes(res)).equals(data.subarray(49_000))).toBe(true);
  });

  it('after forget() still serves a shared file, through the engine', async () => {
    const data = randomBytes(300_000);
    fs.writeFileSync(path.join(input, 'through.png'), data);
    t.studio.sharedFolders.forget();
    expect(t.studio.sharedFolders.folders).toEqual([]);
    const res = await t.api(viewUrl({ filename: 'through.png', type: 'input' }));
    expect(res.status).toBe(200);
    expect((await bytes(res)).equals(data)).toBe(true);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-disposition')).toBe('inline; filename="through.png"');
    expect(res.headers.get('content-security-policy')).toBe(USER_FILE_HEADERS['Content-Security-Policy']);
    // Streamed through: the engine sends no Cache-Control, Studio's disk path sends `no-cache`.
    expect(res.headers.get('cache-control')).toBeNull();
    // The engine's refusals still arrive as Studio's JSON 400.
    const escaping = await t.api(viewUrl({ filename: 'through.png', type: 'input', subfolder: '../..' }));
    expect(escaping.status).toBe(400);
    expect(typeof (await detail(escaping))).toBe('string');
  });

  it('answers 404 once the engine is stopped, even for a file on Studio\'s disk', async () => {
    // Probe again first, so the stop itself must clear the shared folders.
    expect(await t.studio.sharedFolders.probe()).toEqual(['input', 'output', 'temp']);
    await t.studio.engine.stop();
    expect(t.studio.sharedFolders.folders).toEqual([]);
    const res = await t.api(viewUrl({ filename: 'through.png', type: 'input' }));
    expect(res.status).toBe(404);
    expect(typeof (await detail(res))).toBe('string');
  });
});

describe('an external engine with folders of its own', () => {
  let engine: StandinEngine;
  let engineRoot: string;
  let t: TestStudio;
  const engineInput = () => path.join(engineRoot, 'input');

  beforeAll(async () => {
    engineRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
    engine = await startStandinEngine({
      port: 0,
      inputDir: engineInput(),
      outputDir: path.join(engineRoot, 'output'),
      tempDir: path.join(engineRoot, 'temp'),
      stepMs: 10,
    });
    t = await startTestStudio({ startEngine: true, env: { ENGINE_MODE: 'external', ENGINE_PORT: String(engine.port) } });
    await t.studio.engineReady();
  });

  afterAll(async () => {
    await t?.stop();
    await engine?.close();
    fs.rmSync(engineRoot, { recursive: true, force: true });
  });

  it('finds no folder shared and leaves no marker in Studio\'s folders', async () => {
    expect(t.studio.engine.state.mode).toBe('external');
    // The probe Studio started when the engine came up may still run: one more, awaited, settles it.
    expect(await t.studio.sharedFolders.probe()).toEqual([]);
    expect(t.studio.sharedFolders.folders).toEqual([]);
    // Studio's own probe may still be between writing and removing a marker: wait for it.
    const studioDirs = [path.join(t.dir, 'assets', 'input'), path.join(t.dir, 'assets', 'output'), path.join(t.dir, 'engine', 'temp', 'temp')];
    await until(() => probeLeftovers(studioDirs).length === 0, 'no probe marker left');
  });

  it('fills the job folder, its ZIP and the listings from the engine\'s /view when a job completes', async () => {
    const image = await uploadSample(t.api, 'separate-input.png');
    // The uploaded input travels to Studio's own input folder too.
    expect(fs.readFileSync(path.join(t.dir, 'assets', 'input', image)).equals(fs.readFileSync(SAMPLE_PNG))).toBe(true);
    const { prompt_id } = await execute(t.api, 'image-filter', { params: { _existing_input_image: image } });
    await waitForJob(t.api, prompt_id);
    const job = t.studio.jobs.get(prompt_id)!;
    const engineFile = path.join(engineRoot, 'output', job.output_dir!, 'final', 'filtered_00001_.png');
    const studioFile = path.join(t.dir, 'assets', 'output', job.output_dir!, 'final', 'filtered_00001_.png');
    // The engine's file, its image data byte for byte, with Studio's provenance text added (issue 46).
    expect(withoutText(fs.readFileSync(studioFile)).equals(withoutText(fs.readFileSync(engineFile)))).toBe(true);
    expect(textOf(fs.readFileSync(studioFile), 'prompt')).toBe(textOf(fs.readFileSync(engineFile), 'prompt'));
    expect(textOf(fs.readFileSync(studioFile), 'studio_lock')).toContain(prompt_id);
    const zip = Buffer.from(await (await t.api(`/api/admin/history/${prompt_id}/package`)).arrayBuffer());
    expect(zip.includes(Buffer.from(`output/final/filtered_00001_.png`))).toBe(true);
    expect(zip.includes(Buffer.from(`input/${image}`))).toBe(true);
    const listing = JSON.stringify(await (await t.api('/api/admin/assets/outputs')).json());
    expect(listing).toContain(job.output_dir!);
    expect((await t.api(`/api/admin/assets/thumbnail?type=outputs&path=${job.output_dir!}/final/filtered_00001_.png`)).status).toBe(200);
  });

  it('streams a file from the engine\'s own input folder, byte for byte', async () => {
    const data = randomBytes(600_000);
    fs.writeFileSync(path.join(engineInput(), 'remote.png'), data);
    const res = await t.api(viewUrl({ filename: 'remote.png', type: 'input' }));
    expect(res.status).toBe(200);
    expect((await bytes(res)).equals(data)).toBe(true);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-length')).toBe(String(data.length));
    expect(res.headers.get('content-disposition')).toBe('inline; filename="remote.png"');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('relays the engine\'s answers to Range, If-Range and If-None-Match', async () => {
    const data = randomBytes(10_000);
    fs.writeFileSync(path.join(engineInput(), 'ranged.mp4'), data);
    const url = viewUrl({ filename: 'ranged.mp4', type: 'input' });
    const res = await ranged(t.api, url, 'bytes=100-199');
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes 100-199/${data.length}`);
    expect(res.headers.get('content-length')).toBe('100');
    expect((await bytes(res)).equals(data.subarray(100, 200))).toBe(true);
    const etag = res.headers.get('etag');
    expect(etag).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);

    const beyond = await ranged(t.api, url, `bytes=${data.length}-`);
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${data.length}`);
    expect(typeof (await detail(beyond))).toBe('string');

    // A stale If-Range: the whole (changed) file, 200.
    const stale = await t.api(url, { headers: { Range: 'bytes=0-9', 'If-Range': '"0-0"' } });
    expect(stale.status).toBe(200);
    expect((await bytes(stale)).equals(data)).toBe(true);
    const cached = await t.api(url, { headers: { 'If-None-Match': etag! } });
    expect(cached.status).toBe(304);
    expect((await cached.arrayBuffer()).byteLength).toBe(0);
  });

  it('serves the engine\'s file, not Studio\'s own file of the same name', async () => {
    fs.writeFileSync(path.join(engineInput(), 'both.txt'), 'engine copy');
    fs.writeFileSync(path.join(t.dir, 'assets', 'input', 'both.txt'), 'studio copy');
    const res = await t.api(viewUrl({ filename: 'both.txt', type: 'input' }));
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('engine copy');
  });

  it('answers 404 for a file that exists only in Studio\'s own input folder', async () => {
    fs.writeFileSync(path.join(t.dir, 'assets', 'input', 'studio-only.png'), 'not the engine\'s');
    const res = await t.api(viewUrl({ filename: 'studio-only.png', type: 'input' }));
    expect(res.status).toBe(404);
    expect(typeof (await detail(res))).toBe('string');
  });
});
