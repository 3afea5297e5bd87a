/**
 * A catalog file that is not valid (hand-edited JSON with a typo, an entry missing a field):
 * import and download say what is wrong with which file, instead of "Internal server error" or
 * "not in the catalog"; once the file is fixed they work without a restart.
 *
 * Order matters (one Studio for the file): the last test fixes the catalog file the others need
 * broken, so it stays last.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogOf, repoEntry, writeCatalogs } from '../../helpers/fake-catalogs.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

const CLOSED = 'http://127.0.0.1:9';
let t: TestStudio;
let modelsFile: string;
const good = catalogOf([repoEntry('kept.safetensors')]);

function upload(text: string): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([text], { type: 'application/json' }), 'import.json');
  return t.api('/api/admin/models/import', { method: 'POST', body: form });
}
const post = (pathname: string, body?: unknown) =>
  t.api(pathname, { method: 'POST', ...(body ? { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) } : {}) });
const detail = async (res: Response) => ((await res.json()) as { detail: string }).detail;

beforeAll(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-catalog-unreadable-'));
  writeCatalogs(dir, { models: good });
  modelsFile = path.join(dir, 'catalogs', 'models.json');
  // A hand edit that broke the JSON (a trailing comma).
  fs.writeFileSync(modelsFile, JSON.stringify(good, null, 2).replace(/\n\}$/, ',\n}'));
  t = await startTestStudio({ dir, env: { REPOHOST_BASE_URL: CLOSED, MODELHUB_BASE_URL: CLOSED } });
});
afterAll(async () => t?.stop());

describe('an invalid models catalog', () => {
  it('import names the file and the problem', async () => {
    const res = await upload(JSON.stringify(catalogOf([repoEntry('new.safetensors')])));
    expect(res.status).toBe(500);
    const text = await detail(res);
    expect(text).toContain(modelsFile);
    expect(text).toMatch(/not valid JSON/);
    expect(text).toMatch(/Correct the file/);
  });

  it('download of an entry it holds names the file, not "not in the catalog"', async () => {
    for (const res of [await post('/api/admin/models/download/kept.safetensors'), await post('/api/admin/models/download-batch', { filenames: ['kept.safetensors'] })]) {
      expect(res.status).toBe(500);
      const text = await detail(res);
      expect(text).toContain(modelsFile);
      expect(text).not.toMatch(/not in the/i);
    }
  });

  it('an entry that breaks the schema is named by its place in the file', async () => {
    const broken = structuredClone(good) as unknown as { categories: Array<{ models: Array<Record<string, unknown>> }> };
    delete broken.categories[0]!.models[0]!.file;
    fs.writeFileSync(modelsFile, JSON.stringify(broken));
    const text = await detail(await post('/api/admin/models/download/kept.safetensors'));
    expect(text).toContain(`${modelsFile} is invalid at categories.0.models.0.file`);
  });

  it('works again once the file is fixed, without a restart', async () => {
    fs.writeFileSync(modelsFile, JSON.stringify(good));
    const res = await upload(JSON.stringify(catalogOf([repoEntry('new.safetensors')])));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ added: ['new.safetensors'] });
  });
});
