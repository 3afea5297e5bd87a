/**
 * Node packages for install tests, all local: git repositories reached through `https://` URLs
 * (git's `url.<base>.insteadOf`, set through GIT_CONFIG_* variables, so the machine's git config
 * is untouched), a throwaway venv standing in for the engine's Python, and hand-made wheels in a
 * local folder so pip runs offline.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const FAKE_GIT_HOST = 'https://git.studio.test/';

/** A wheel built by hand (a wheel is a zip with a dist-info folder). */
export function makeWheel(dir: string, name: string, version: string, requires: string[] = []): void {
  const script = `
import zipfile, sys
name, version, out = sys.argv[1], sys.argv[2], sys.argv[3]
requires = sys.argv[4:]
info = f"{name}-{version}.dist-info"
meta = f"Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\n" + "".join(f"Requires-Dist: {r}\\n" for r in requires)
with zipfile.ZipFile(f"{out}/{name}-{version}-py3-none-any.whl", "w") as z:
    z.writestr(f"{name}/__init__.py", f"VERSION = '{version}'\\n")
    z.writestr(f"{info}/METADATA", meta)
    z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\\nGenerator: studio-test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")
    z.writestr(f"{info}/RECORD", "")
`;
  execFileSync('python3', ['-c', script, name, version, dir, ...requires]);
}

/** A bare git repository `<root>/<name>.git` holding `files`. */
export function makeRepo(root: string, name: string, files: Record<string, string>): void {
  const work = path.join(root, 'work', name);
  fs.mkdirSync(work, { recursive: true });
  for (const [file, body] of Object.entries(files)) fs.writeFileSync(path.join(work, file), body);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: work, stdio: 'ignore', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'package');
  execFileSync('git', ['clone', '-q', '--bare', work, path.join(root, `${name}.git`)], { stdio: 'ignore' });
}

/** Environment that maps FAKE_GIT_HOST to the local repositories and keeps pip offline. */
export function installEnv(gitRoot: string, wheels: string): Record<string, string> {
  return {
    GIT_CONFIG_COUNT: '2',
    GIT_CONFIG_KEY_0: `url.file://${gitRoot}/.insteadOf`,
    GIT_CONFIG_VALUE_0: FAKE_GIT_HOST,
    GIT_CONFIG_KEY_1: 'protocol.file.allow',
    GIT_CONFIG_VALUE_1: 'always',
    PIP_NO_INDEX: '1',
    PIP_FIND_LINKS: wheels,
    PIP_DISABLE_PIP_VERSION_CHECK: '1',
  };
}

/** A venv standing in for the engine's Python, with a pinned `numpy` 1.0.0 installed; returns its python. */
export function makeEngineVenv(dir: string, wheels: string): string {
  execFileSync('python3', ['-m', 'venv', dir], { stdio: 'ignore' });
  const python = path.join(dir, 'bin', 'python');
  execFileSync(python, ['-m', 'pip', 'install', '-q', '--no-index', '--find-links', wheels, 'numpy==1.0.0'], { stdio: 'ignore' });
  return python;
}

/** A new commit on the bare repository `<root>/<name>.git` changing `files`; returns its commit id. */
export function addCommit(root: string, name: string, files: Record<string, string>): string {
  const work = path.join(root, 'work', name);
  for (const [file, body] of Object.entries(files)) fs.writeFileSync(path.join(work, file), body);
  const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
  execFileSync('git', ['add', '-A'], { cwd: work, env });
  execFileSync('git', ['commit', '-q', '-m', 'update'], { cwd: work, env });
  execFileSync('git', ['push', '-q', path.join(root, `${name}.git`), 'main'], { cwd: work, env, stdio: 'ignore' });
  return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: work }).toString().trim();
}

/** An `__init__.py` declaring node classes the way engine packages do. */
export function nodePackInit(classes: string[], preamble = ''): string {
  const defs = classes.map((c) => `class ${c}:\n    CATEGORY = "test"\n    RETURN_TYPES = ("IMAGE",)\n    FUNCTION = "run"\n    @classmethod\n    def INPUT_TYPES(cls):\n        return {"required": {"image": ("IMAGE",)}}\n`).join('\n');
  return `${preamble}\n${defs}\nNODE_CLASS_MAPPINGS = {${classes.map((c) => `"${c}": ${c}`).join(', ')}}\n`;
}

/** `{normalized name: version}` of `python`'s environment (what a snapshot compares). */
export function pipFreeze(python: string): string {
  return execFileSync(python, ['-m', 'pip', 'list', '--format=freeze', '--disable-pip-version-check']).toString();
}
