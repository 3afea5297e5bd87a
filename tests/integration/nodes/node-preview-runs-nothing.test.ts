/**
 * A node package's preview runs nothing of the package: its requirement files are read as data.
 * Each hostile repository below has a `setup.py` that would write a marker if pip built the
 * requirement it names (pip's `--dry-run` still builds local paths, VCS links and archives); the
 * preview refuses them, naming the line, and the marker never appears. Plain requirements, also
 * through `-r` includes, are still resolved against the index.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { previewRequirements, type PipRun } from '../../../server/nodes/pip-preview.js';
import { makeEngineVenv, makeWheel } from '../../helpers/fake-node-packages.js';

let root: string;
let run: PipRun;
let marker: string;

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-preview-'));
  const wheels = path.join(root, 'wheels');
  fs.mkdirSync(wheels);
  makeWheel(wheels, 'numpy', '1.0.0');
  makeWheel(wheels, 'tinydep', '1.0');
  const python = makeEngineVenv(path.join(root, 'venv'), wheels);
  marker = path.join(root, 'PWNED');
  run = { python, env: { ...process.env, PIP_NO_INDEX: '1', PIP_FIND_LINKS: wheels, PIP_DISABLE_PIP_VERSION_CHECK: '1' }, timeoutMs: 60_000, scratchDir: path.join(root, 'scratch') };
}, 120_000);
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** A package folder whose setup.py writes the marker when run, with these files. */
function pack(name: string, files: Record<string, string>): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'setup.py'), `open(${JSON.stringify(marker)}, 'w').write('ran')\nfrom setuptools import setup\nsetup(name='evil', version='1.0')\n`);
  for (const [file, body] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), body);
  }
  return dir;
}

const preview = (dir: string) => previewRequirements(run, { dir, name: path.basename(dir), installed: {}, held: {}, constraints: '' });

describe('node package preview: nothing of the package runs', () => {
  it.each([
    ['dot', 'tinydep==1.0\n.\n', '"."'],
    ['editable', '-e .\n', '"-e ."'],
    ['local-path', './sub\n', '"./sub"'],
    ['direct-url', 'evil @ file:///tmp/evil\n', 'evil @ file'],
    ['vcs', 'git+https://git.studio.test/evil.git\n', 'git+https'],
    ['extra-index', '--extra-index-url https://evil.example/simple\ntinydep\n', '--extra-index-url'],
  ])('%s: refused naming the line, setup.py never runs', async (name, requirements, named) => {
    const dir = pack(`pack-${name}`, { 'requirements.txt': requirements, 'sub/setup.py': `open(${JSON.stringify(marker)}, 'w').write('ran')\n` });
    await expect(preview(dir)).rejects.toThrow(new RegExp(`${named.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*Nothing was run`));
    expect(fs.existsSync(marker)).toBe(false);
  });

  it('an include that leaves the package is refused', async () => {
    const dir = pack('pack-outside', { 'requirements.txt': '-r ../outside.txt\n' });
    fs.writeFileSync(path.join(root, 'outside.txt'), 'tinydep\n');
    await expect(preview(dir)).rejects.toThrow(/outside the package/);
  });

  it('plain requirements, through an include, with comments and hashes, are resolved', async () => {
    const dir = pack('pack-plain', { 'requirements.txt': '# deps\n-r more/base.txt\n', 'more/base.txt': 'tinydep==1.0 --hash=sha256:abc  # pinned\n' });
    expect(await preview(dir)).toEqual({ added: [{ name: 'tinydep', version: '1.0' }], upgraded: [], downgraded: [] });
    expect(fs.existsSync(marker)).toBe(false);
  });
});
