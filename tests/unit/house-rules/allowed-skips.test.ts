/**
 * `npm test` fails a run in which any test skipped, unless scripts/allowed-skips.mjs lists it (a
 * GPU or the Electron binary only). A real Vitest JSON report of a file with skipped tests is
 * checked against the list: unlisted skips are reported, listed ones are not.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../../server/config.js';
import { ALLOWED_SKIPS, unlistedSkips, type AllowedSkip, type VitestJsonReport } from '../../../scripts/allowed-skips.mjs';

describe('skipped tests in npm test', () => {
  it('lists only GPU and Electron-binary skips', () => {
    for (const entry of ALLOWED_SKIPS) {
      expect(['a GPU', 'the Electron binary']).toContain(entry.reason);
      expect(fs.existsSync(path.join(APP_ROOT, entry.file)), entry.file).toBe(true);
    }
  });

  it('reports each skipped test the list does not allow, and none it allows', () => {
    // A Vitest report of a throwaway test file: one passes, one skips by condition, one is a todo.
    const dir = fs.mkdtempSync(path.join(APP_ROOT, 'tests', 'unit', 'house-rules', 'tmp-skips-'));
    try {
      const file = path.join(dir, 'skips.test.ts');
      fs.writeFileSync(
        file,
        "import { describe, it, expect } from 'vitest';\n" +
          "describe('box', () => {\n  it('runs', () => expect(1).toBe(1));\n  it.skipIf(true)('needs a GPU here', () => {});\n  it.skipIf(true)('needs unzip', () => {});\n  it.todo('later');\n});\n",
      );
      const out = path.join(os.tmpdir(), `studio-skips-${process.pid}.json`);
      const run = spawnSync(path.join(APP_ROOT, 'node_modules', '.bin', 'vitest'), ['run', file, '--root', APP_ROOT, '--reporter=json', `--outputFile.json=${out}`], {
        cwd: APP_ROOT,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1' },
      });
      expect(run.status, run.stderr).toBe(0);
      const report = JSON.parse(fs.readFileSync(out, 'utf8')) as VitestJsonReport;
      fs.rmSync(out, { force: true });
      const rel = path.relative(APP_ROOT, file).split(path.sep).join('/');
      expect(unlistedSkips(report, APP_ROOT, [])).toEqual([`${rel} > box needs a GPU here`, `${rel} > box needs unzip`, `${rel} > box later`]);
      const gpu: AllowedSkip[] = [{ file: rel, test: /needs a GPU/, reason: 'a GPU' }];
      expect(unlistedSkips(report, APP_ROOT, gpu)).toEqual([`${rel} > box needs unzip`, `${rel} > box later`]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
