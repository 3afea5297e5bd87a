/**
 * Presets CRUD against a real Studio: files in STUDIO_DIR/presets, the list entries, rename,
 * delete, import/export, the saved_prompts mirror (and its rebuild at boot), error cases.
 *
 * Order matters (one Studio for the file): the tests run in file order and build on each other.
 * The POST tests create `fox` (and its replacement); the list, mirror, rename, export/import and
 * delete tests read and change the presets the earlier ones left (`hub_1`, `red-fox`, …); the last
 * describe restarts Studio on the same folder. Run one test alone with the ones above it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let t: TestStudio;
const presetsDir = () => path.join(t.dir, 'presets');
const fileOf = (id: string) => path.join(presetsDir(), `${id}.json`);
const readFile = (id: string) => JSON.parse(fs.readFileSync(fileOf(id), 'utf8')) as Record<string, unknown>;
const mirrorRows = () => t.studio.db.prepare('SELECT id, name, workflow_id, text, params FROM saved_prompts ORDER BY id').all() as Array<Record<string, string>>;

beforeAll(async () => {
  t = await startTestStudio({ env: { MODELHUB_BASE_URL: 'http://hub.test:9' } });
});

afterAll(async () => {
  await t?.stop();
});

function post(body: unknown): Promise<Response> {
  return t.api('/api/admin/presets', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
}

function rename(id: string, body: unknown): Promise<Response> {
  return t.api(`/api/admin/presets/${id}/rename`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
}

function importFile(text: string, name = 'preset.json'): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([text], { type: 'application/json' }), name);
  return t.api('/api/admin/presets/import', { method: 'POST', body: form });
}

async function detail(res: Response): Promise<string> {
  return ((await res.json()) as { detail: string }).detail;
}

const fox = { id: 'fox', workflow: { workflow_id: 'txt2img-sdxl', params: { positive: 'a [[Animal:fox|cat]]', steps: 4 } } };

describe('POST /api/admin/presets', () => {
  it('creates a file with defaults (name = id, private false, workflow_name from the workflow)', async () => {
    const res = await post(fox);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: 'fox', message: "Preset 'fox' created" });
    expect(readFile('fox')).toEqual({
      id: 'fox',
      name: 'fox',
      description: '',
      private: false,
      workflow: { workflow_id: 'txt2img-sdxl', workflow_name: 'SDXL text to image', params: { positive: 'a [[Animal:fox|cat]]', steps: 4 } },
    });
    // Nothing but the preset is left in the folder (no temp files).
    expect(fs.readdirSync(presetsDir())).toEqual(['fox.json']);
  });

  it('replaces a preset posted again with the same id', async () => {
    const res = await post({ ...fox, name: 'Fox v2', description: 'second', private: true });
    expect(await res.json()).toEqual({ id: 'fox', message: "Preset 'fox' updated" });
    expect(readFile('fox')).toMatchObject({ name: 'Fox v2', description: 'second', private: true });
  });

  it('answers 400 naming the field for a missing id or workflow, or a bad id', async () => {
    let res = await post({ workflow: fox.workflow });
    expect(res.status).toBe(400);
    expect(await detail(res)).toMatch(/\bid\b/);
    res = await post({ id: 'x' });
    expect(res.status).toBe(400);
    expect(await detail(res)).toMatch(/workflow/);
    res = await post({ id: 'x', workflow: { params: {} } });
    expect(res.status).toBe(400);
    expect(await detail(res)).toMatch(/workflow\.workflow_id/);
    for (const id of ['../evil', 'with space', 'dot.json', '', 'ü']) {
      res = await post({ ...fox, id });
      expect(res.status, id).toBe(400);
      expect(await detail(res)).toMatch(/\bid\b/);
    }
    res = await post({ ...fox, id: 'p', private: 'yes' });
    expect(res.status).toBe(400);
    expect(await detail(res)).toMatch(/private/);
    res = await t.api('/api/admin/presets', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '[1]' });
    expect(res.status).toBe(400);
    expect(fs.readdirSync(presetsDir())).toEqual(['fox.json']);
  });
});

describe('GET /api/admin/presets and /{id}', () => {
  beforeAll(async () => {
    await post({
      id: 'hub_1',
      name: 'A hub image',
      workflow: { workflow_id: 'image-filter', workflow_name: 'Filter', params: {} },
      source: { type: 'modelhub', modelhub_image_id: 4242, detected_type: 'i2i' },
    });
  });

  it('lists every spec field, hub fields only for hub presets, sorted by name', async () => {
    const res = await t.api('/api/admin/presets');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([
      {
        id: 'hub_1',
        name: 'A hub image',
        description: '',
        private: false,
        workflow_id: 'image-filter',
        workflow_name: 'Filter',
        source_type: 'modelhub',
        modelhub_image_id: 4242,
        modelhub_url: 'http://hub.test:9/images/4242',
        detected_type: 'i2i',
      },
      // The questions a run asks, for the card (only a preset with placeholders has them).
      { id: 'fox', name: 'Fox v2', description: 'second', private: true, workflow_id: 'txt2img-sdxl', workflow_name: 'SDXL text to image', questions: ['Animal'] },
    ]);
  });

  it('returns the full preset with workflow.params; 404 unknown; 400 bad id', async () => {
    const res = await t.api('/api/admin/presets/fox');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ...readFile('fox'), needs_image: false });
    expect((await t.api('/api/admin/presets/nope')).status).toBe(404);
    expect((await t.api('/api/admin/presets/bad%20id')).status).toBe(400);
  });

  it('says whether the preset still needs an input image (its workflow takes one and it has none)', async () => {
    const needs = async (id: string) => ((await (await t.api(`/api/admin/presets/${id}`)).json()) as { needs_image: unknown }).needs_image;
    expect(await needs('hub_1')).toBe(true);
    await post({ id: 'with-image', workflow: { workflow_id: 'image-filter', params: { image: 'in.png' } } });
    await post({ id: 'with-existing', workflow: { workflow_id: 'image-filter', params: { _existing_input_image: 'in.png' } } });
    await post({ id: 'gone-workflow', workflow: { workflow_id: 'not-installed', params: {} } });
    expect(await needs('with-image')).toBe(false);
    expect(await needs('with-existing')).toBe(false);
    expect(await needs('gone-workflow')).toBe(false);
    for (const id of ['with-image', 'with-existing', 'gone-workflow']) await t.api(`/api/admin/presets/${id}`, { method: 'DELETE' });
  });

  it('skips a broken file in the list and answers 500 for it alone', async () => {
    fs.writeFileSync(fileOf('broken'), '{ not json');
    const list = (await (await t.api('/api/admin/presets')).json()) as Array<{ id: string }>;
    expect(list.map((p) => p.id)).toEqual(['hub_1', 'fox']);
    const res = await t.api('/api/admin/presets/broken');
    expect(res.status).toBe(500);
    expect(await detail(res)).toMatch(/broken\.json is invalid/);
    fs.rmSync(fileOf('broken'));
  });
});

describe('createPreset from other code (the model hub)', () => {
  it('creates like POST does, and rejects bad input with a 400 HttpError', async () => {
    const service = t.studio.presets.service;
    const id = await service.freeId('hub image/7');
    expect(id).toBe('hub-image-7');
    expect(await service.createPreset({ id, workflow: { workflow_id: 'image-filter', params: {} }, source: { type: 'modelhub', modelhub_image_id: 7 } })).toEqual({
      id,
      message: `Preset '${id}' created`,
    });
    expect(await service.freeId('hub image/7')).toBe('hub-image-7-2');
    const list = (await (await t.api('/api/admin/presets')).json()) as Array<Record<string, unknown>>;
    expect(list.find((p) => p.id === id)).toMatchObject({ source_type: 'modelhub', modelhub_image_id: 7, modelhub_url: 'http://hub.test:9/images/7', detected_type: null });
    await expect(service.createPreset({ id: 'x' })).rejects.toMatchObject({ status: 400 });
    expect((await t.api(`/api/admin/presets/${id}`, { method: 'DELETE' })).status).toBe(200);
  });
});

describe('the saved_prompts mirror', () => {
  it('has one row per preset with its prompt text', () => {
    expect(mirrorRows()).toEqual([
      { id: 'fox', name: 'Fox v2', workflow_id: 'txt2img-sdxl', text: 'a [[Animal:fox|cat]]', params: JSON.stringify(fox.workflow.params) },
      { id: 'hub_1', name: 'A hub image', workflow_id: 'image-filter', text: '', params: '{}' },
    ]);
  });

  it('is what system status counts', async () => {
    const status = (await (await t.api('/api/admin/system/status')).json()) as { database: { tables: Record<string, number> } };
    expect(status.database.tables.saved_prompts).toBe(2);
  });
});

describe('PUT /api/admin/presets/{id}/rename', () => {
  it('changes fields in place', async () => {
    const res = await rename('fox', { name: 'Foxy', description: 'd', private: false });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: 'fox', name: 'Foxy' });
    expect(readFile('fox')).toMatchObject({ id: 'fox', name: 'Foxy', description: 'd', private: false, workflow: { params: fox.workflow.params } });
    expect(mirrorRows().find((r) => r.id === 'fox')?.name).toBe('Foxy');
  });

  it('renames the file for a new id, keeping everything else', async () => {
    const before = readFile('fox');
    const res = await rename('fox', { id: 'red-fox' });
    expect(await res.json()).toEqual({ id: 'red-fox', name: 'Foxy' });
    expect(fs.existsSync(fileOf('fox'))).toBe(false);
    expect(readFile('red-fox')).toEqual({ ...before, id: 'red-fox' });
    expect(mirrorRows().map((r) => r.id)).toEqual(['hub_1', 'red-fox']);
    expect((await t.api('/api/admin/presets/fox')).status).toBe(404);
  });

  it('answers 409 when the new id exists, and keeps both presets as they were', async () => {
    const a = readFile('red-fox');
    const b = readFile('hub_1');
    const res = await rename('red-fox', { id: 'hub_1', name: 'clobber' });
    expect(res.status).toBe(409);
    expect(await detail(res)).toMatch(/hub_1/);
    expect(readFile('red-fox')).toEqual(a);
    expect(readFile('hub_1')).toEqual(b);
  });

  it('two renames racing for one id: one wins, the other is a 409, nothing is lost', async () => {
    await post({ ...fox, id: 'race-a', name: 'A' });
    await post({ ...fox, id: 'race-b', name: 'B' });
    const [a, b] = await Promise.all([rename('race-a', { id: 'race-z' }), rename('race-b', { id: 'race-z' })]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const loser = a.status === 409 ? 'race-a' : 'race-b';
    expect(readFile('race-z').name).toBe(a.status === 200 ? 'A' : 'B');
    expect(readFile(loser).id).toBe(loser);
    for (const id of ['race-z', loser]) expect((await t.api(`/api/admin/presets/${id}`, { method: 'DELETE' })).status).toBe(200);
  });

  it('answers 404 unknown, 400 for a bad new id or field type', async () => {
    expect((await rename('nope', { name: 'x' })).status).toBe(404);
    let res = await rename('red-fox', { id: 'no/slash' });
    expect(res.status).toBe(400);
    expect(await detail(res)).toMatch(/\bid\b/);
    res = await rename('red-fox', { private: 'no' });
    expect(res.status).toBe(400);
    expect(await detail(res)).toMatch(/private/);
  });
});

describe('export and import', () => {
  it('exports the preset as an attachment', async () => {
    const res = await t.api('/api/admin/presets/red-fox/export');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="red-fox.json"');
    expect(await res.json()).toEqual(readFile('red-fox'));
    expect((await t.api('/api/admin/presets/nope/export')).status).toBe(404);
  });

  it('imports an exported file under a new id, and mirrors it', async () => {
    const exported = (await (await t.api('/api/admin/presets/red-fox/export')).json()) as Record<string, unknown>;
    const res = await importFile(JSON.stringify({ ...exported, id: 'imported' }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: 'imported', message: "Preset 'imported' imported" });
    expect(readFile('imported')).toEqual({ ...exported, id: 'imported' });
    expect(mirrorRows().map((r) => r.id)).toContain('imported');
  });

  it('takes the id from the file name when the document has none', async () => {
    const res = await importFile(JSON.stringify({ workflow: { workflow_id: 'image-filter' } }), 'from-name.json');
    expect(await res.json()).toMatchObject({ id: 'from-name' });
    expect(readFile('from-name')).toMatchObject({ name: 'from-name', workflow: { workflow_id: 'image-filter', workflow_name: 'Image noise and blur', params: {} } });
  });

  it('answers 400 with the reason for a bad file', async () => {
    const cases: Array<[string, RegExp]> = [
      ['{ nope', /not valid JSON/],
      ['[1, 2]', /JSON object/],
      [JSON.stringify({ id: 'x' }), /workflow/],
      [JSON.stringify({ id: 'bad id', workflow: { workflow_id: 'w' } }), /\bid\b/],
      [JSON.stringify({ id: 'x', workflow: { workflow_id: 'w', params: 'text' } }), /workflow\.params/],
    ];
    for (const [text, reason] of cases) {
      const res = await importFile(text, 'whatever.txt');
      expect(res.status, text).toBe(400);
      expect(await detail(res)).toMatch(reason);
    }
    let res = await t.api('/api/admin/presets/import', { method: 'POST', body: new FormData() });
    expect(res.status).toBe(400);
    const wrongField = new FormData();
    wrongField.append('preset', new Blob(['{}']), 'p.json');
    res = await t.api('/api/admin/presets/import', { method: 'POST', body: wrongField });
    expect(res.status).toBe(400);
    // A JSON document over the 5 MB limit is refused before it is read.
    res = await importFile(JSON.stringify({ id: 'huge', workflow: { workflow_id: 'w', params: { text: 'x'.repeat(5 * 1024 * 1024) } } }));
    expect(res.status).toBe(413);
    expect(fs.existsSync(fileOf('x'))).toBe(false);
    expect(fs.existsSync(fileOf('huge'))).toBe(false);
  });
});

describe('DELETE /api/admin/presets/{id}', () => {
  it('removes the file and the row; 404 the second time', async () => {
    const res = await t.api('/api/admin/presets/imported', { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    expect(fs.existsSync(fileOf('imported'))).toBe(false);
    expect(mirrorRows().map((r) => r.id)).not.toContain('imported');
    expect((await t.api('/api/admin/presets/imported', { method: 'DELETE' })).status).toBe(404);
    expect((await t.api('/api/admin/presets/bad.id', { method: 'DELETE' })).status).toBe(400);
  });
});

describe('the mirror after a restart', () => {
  it('is rebuilt from the folder: files added or removed by hand are counted', async () => {
    const dir = t.dir;
    t.studio.db.prepare("UPDATE saved_prompts SET updated_at = '2000-01-01T00:00:00' WHERE id = 'red-fox'").run();
    const redFoxUpdated = '2000-01-01T00:00:00';
    await t.studio.stop();
    fs.rmSync(path.join(dir, 'presets', 'hub_1.json'));
    fs.writeFileSync(path.join(dir, 'presets', 'by-hand.json'), JSON.stringify({ workflow: { workflow_id: 'image-filter' } }));
    fs.writeFileSync(path.join(dir, 'presets', 'junk.json'), 'nope');
    const again = await startTestStudio({ dir });
    try {
      const rows = again.studio.db.prepare('SELECT id, updated_at FROM saved_prompts ORDER BY id').all() as Array<{ id: string; updated_at: string }>;
      expect(rows.map((r) => r.id)).toEqual(['by-hand', 'from-name', 'red-fox']);
      // Rows of presets that did not change keep their time.
      expect(rows.find((r) => r.id === 'red-fox')?.updated_at).toBe(redFoxUpdated);
    } finally {
      await again.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
