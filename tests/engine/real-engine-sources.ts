/**
 * What the real installer reaches outside, made from the real engine of ../shared/real-engine/
 * (ComfyUI 0.29.0 in a Debian sid chroot, REALENGINE_HOME, default /tmp/realengine) — this
 * machine has no network but the package registries, so upstream's repository and PyPI are
 * stood in for by local copies of the same code:
 * - the engine's repository: a git repository of the snapshot's files with two tags, `v0.29.0`
 *   (the snapshot) and `v0.29.1` (one small commit on top: its version file), reached through
 *   `https://` with git's insteadOf like the offline tests (the snapshot itself has no tags and
 *   lacks two tokenizer blobs, so it cannot be cloned as it is);
 * - the package index: wheels of the requirements Debian lacks, made from the very sources the
 *   real engine runs (its `pydeps/` and `shims/`); the browser UI's data packages and the GLSL
 *   nodes' OpenGL packages are empty wheels, as the real engine has none of them;
 * - the base interpreter: the chroot's python3 behind a wrapper that works inside the chroot and
 *   out (below). Its Debian torch is what the new environment uses.
 * The repository and the wheels are made once and cached under ~/.cache/studio/.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { APP_ROOT } from '../../server/config.js';

export const REAL_REPO_URL = 'https://git.engine.test/comfyanonymous/ComfyUI';
export const FIRST_TAG = 'v0.29.0';
export const SECOND_TAG = 'v0.29.1';

/** The real engine's folder (ENGINE_DIR's parent, else REALENGINE_HOME, else /tmp/realengine) when it is built here. */
export function realEngineHome(): string | null {
  const home = process.env.ENGINE_DIR ? path.dirname(process.env.ENGINE_DIR) : (process.env.REALENGINE_HOME ?? '/tmp/realengine');
  return fs.existsSync(path.join(home, 'root', 'usr', 'bin', 'python3')) && fs.existsSync(path.join(home, 'ComfyUI', 'main.py')) ? home : null;
}

function cacheDir(home: string): string {
  const commit = execFileSync('git', ['-C', path.join(home, 'ComfyUI'), 'rev-parse', 'HEAD']).toString().trim();
  const dir = path.join(os.homedir(), '.cache', 'studio', 'real-engine', commit.slice(0, 12));
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Make `final` with `make(tmp)` once: a half-made one (a killed run) is never taken for made. */
function once(final: string, make: (tmp: string) => void): string {
  if (fs.existsSync(final)) return final;
  const tmp = `${final}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  make(tmp);
  fs.renameSync(tmp, final);
  return final;
}

/** A bare repository with the snapshot as `v0.29.0` and one commit on top as `v0.29.1`. */
export function realEngineRepo(home: string): string {
  return once(path.join(cacheDir(home), 'ComfyUI.git'), (bare) => {
    const snapshot = path.join(home, 'ComfyUI');
    const work = `${bare}-work`;
    fs.rmSync(work, { recursive: true, force: true });
    fs.mkdirSync(work, { recursive: true });
    const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 'studio-tests', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 'studio-tests', GIT_COMMITTER_EMAIL: 't@t' };
    // The snapshot's tracked files (what is checked out), read from its folder into a new repository.
    const tree = (...args: string[]) => execFileSync('git', ['--git-dir', path.join(work, '.git'), '--work-tree', snapshot, ...args], { env: gitEnv, stdio: ['pipe', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
    execFileSync('git', ['init', '-q', '-b', 'master', work]);
    const files = execFileSync('git', ['-C', snapshot, 'ls-files', '-z'], { maxBuffer: 64 << 20 })
      .toString()
      .split('\0')
      .filter((f) => f && fs.existsSync(path.join(snapshot, f)));
    execFileSync('git', ['--git-dir', path.join(work, '.git'), '--work-tree', snapshot, 'update-index', '--add', '-z', '--stdin'], { input: files.join('\0'), env: gitEnv, maxBuffer: 64 << 20 });
    tree('commit', '-q', '-m', 'ComfyUI 0.29.0 (the real engine snapshot)');
    tree('tag', FIRST_TAG);
    // The second release: the snapshot with its version file saying 0.29.1.
    const version = execFileSync('git', ['--git-dir', path.join(work, '.git'), 'hash-object', '-w', '--stdin'], { input: '# A test release on top of 0.29.0 (Studio\'s engine tests).\n__version__ = "0.29.1"\n' }).toString().trim();
    tree('update-index', '--cacheinfo', `100644,${version},comfyui_version.py`);
    tree('commit', '-q', '-m', 'ComfyUI 0.29.1 (a test release: the version file only)');
    tree('tag', SECOND_TAG);
    execFileSync('git', ['clone', '-q', '--bare', work, bare], { stdio: 'pipe' });
    fs.rmSync(work, { recursive: true, force: true });
  });
}

/** The wheel folders of the package index: the general one (PyPI's stand-in) and an empty torch one (torch comes from the base Python). */
export function realEngineWheels(home: string): { torch: string; general: string } {
  const dir = once(path.join(cacheDir(home), 'wheels'), (tmp) => {
    const general = path.join(tmp, 'wheels-general');
    fs.mkdirSync(general, { recursive: true });
    fs.mkdirSync(path.join(tmp, 'wheels-torch'), { recursive: true });
    const wheel = (name: string, version: string, ...trees: string[]) =>
      execFileSync('python3', [path.join(APP_ROOT, 'tests/fixtures/setup/make-wheel.py'), general, name, version, '', ...trees.map((t) => (t.startsWith('--') ? t : path.join(home, t)))], { stdio: 'pipe' });
    // Pinned in the engine's requirements.txt, at those versions.
    wheel('comfyui-frontend-package', '1.47.10', 'shims/comfyui_frontend_package');
    wheel('comfyui-workflow-templates', '0.11.19');
    wheel('comfyui-embedded-docs', '0.5.9');
    wheel('comfy-kitchen', '0.2.24', 'pydeps/comfy_kitchen');
    wheel('comfy-aimdo', '0.4.10', 'pydeps/comfy_aimdo');
    // Unpinned ones, at the versions setup.sh takes from their repositories.
    wheel('torchsde', '0.2.6', 'pydeps/torchsde', '--requires=trampoline>=0.1.2');
    wheel('trampoline', '0.1.2', 'shims/trampoline.py');
    wheel('kornia', '0.8.2', 'pydeps/kornia', '--requires=kornia_rs>=0.1.9');
    wheel('kornia-rs', '0.1.9', 'shims/kornia_rs');
    wheel('spandrel', '0.4.2', 'pydeps/spandrel');
    wheel('PyOpenGL', '3.1.10');
    wheel('comfy-angle', '0.1.0');
    // Debian's own packages declare requirements Debian does not meet (`pip check` in the base
    // Python lists them): pydantic-settings wants python-dotenv>=1.2.2 (1.2.1 here),
    // huggingface-hub click>=8.4.2 (8.3.3) and hf-xet>=1.5.1 (absent), sympy mpmath<1.4 (1.4.1).
    // pip's resolver then refuses the environment; metadata-only wheels at the declared versions
    // satisfy it, and the modules stay Debian's (what the real engine runs today).
    for (const [name, version] of [['python-dotenv', '1.2.2'], ['click', '8.4.2'], ['hf-xet', '1.5.1'], ['mpmath', '1.3.0']]) wheel(name!, version!);
    // A node package's requirement (the update carries one over).
    execFileSync('python3', [path.join(APP_ROOT, 'tests/fixtures/setup/make-wheel.py'), general, 'node-helper', '0.3.0', 'VERSION = "0.3.0"\n'], { stdio: 'pipe' });
  });
  return { torch: path.join(dir, 'wheels-torch'), general: path.join(dir, 'wheels-general') };
}

/**
 * Debian's python3 has `venv` but not `ensurepip` (that is the python3-venv package), so a venv
 * made from it has no pip; the installer says so and stops. Install it into the chroot once, with
 * the chroot's own apt (setup.sh does not: the real engine itself needs no venv).
 */
export function ensureVenvSupport(home: string): void {
  const root = path.join(home, 'root');
  try {
    execFileSync('chroot', [root, '/usr/bin/python3', '-c', 'import ensurepip'], { stdio: 'pipe' });
    return;
  } catch {
    console.warn('[test:engine] installing python3-venv into the real engine\'s chroot (once)');
  }
  execFileSync('chroot', [root, '/usr/bin/env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', 'install', '-y', '-q', '--no-install-recommends', 'python3-venv'], { stdio: 'pipe', timeout: 300_000 });
}

/**
 * The base interpreter: the chroot's python3 at a path that is the same inside the chroot and out
 * (`dir` must be under REALENGINE_HOME). It runs Python as "$0", so `sys.executable` is the path it
 * was called by: a venv made from it links its `bin/python` back here, and that link, run from
 * outside, enters the chroot again and is the venv's Python there. (The real engine's own
 * `engine-python` runs `/usr/bin/python3`, so a venv made from it would point at the host's Python.)
 */
export function writeBasePython(dir: string, home: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'python3');
  fs.writeFileSync(
    file,
    [
      '#!/bin/bash',
      '# Debian sid\'s python3 of the real engine\'s chroot, inside it and out (Studio\'s engine tests).',
      '# Inside (the chroot\'s root has setup.sh\'s marker file), run Python directly; outside, enter the',
      '# chroot in the same folder (or its root when the folder is not there).',
      'if [ -f /.realengine-packages ]; then exec -a "$0" /usr/bin/python3 "$@"; fi',
      `exec chroot '${path.join(home, 'root')}' /bin/bash -c 'cd "$1" 2>/dev/null || cd /; shift; exec -a "$0" /usr/bin/python3 "$@"' "$0" "$PWD" "$@"`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  return file;
}
