/**
 * Everything an engine install reaches outside, made locally for the installer tests:
 * - the engine's repository: a git repository with release tags, reached through an `https://`
 *   URL that git's `url.<base>.insteadOf` maps to it (GIT_CONFIG_* variables; the machine's git
 *   config is untouched). Its engine is `tests/fixtures/setup/fake-engine/main.py`.
 * - a package index answering like PyPI's simple API (PEP 503 pages at `/simple/<name>/`), and a
 *   torch index with one folder per build (`/torch/cpu/<name>/`), over small hand-made wheels.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { APP_ROOT } from '../../server/config.js';

export const ENGINE_REPO_URL = 'https://git.engine.test/comfyanonymous/ComfyUI';
const FIXTURES = path.join(APP_ROOT, 'tests/fixtures/setup');

/** One release of the fake engine: its tag, and whether its smoke prompt fails. */
export interface FakeRelease {
  tag: string;
  smokeFails?: boolean;
  /** Extra files of the checkout (a node package under custom_nodes/, say). */
  files?: Record<string, string>;
}

/** A bare repository `<root>/ComfyUI.git` holding one commit and tag per release, in order. */
export function makeEngineRepo(root: string, releases: readonly FakeRelease[]): string {
  const work = path.join(root, 'engine-work');
  fs.mkdirSync(path.join(work, 'comfy'), { recursive: true });
  fs.mkdirSync(path.join(work, 'custom_nodes'), { recursive: true });
  fs.copyFileSync(path.join(FIXTURES, 'fake-engine', 'main.py'), path.join(work, 'main.py'));
  fs.writeFileSync(path.join(work, 'comfy', '__init__.py'), '');
  fs.writeFileSync(path.join(work, 'custom_nodes', 'example_node.py.example'), '# an example\n');
  fs.writeFileSync(path.join(work, 'requirements.txt'), 'torch\ntorchvision\ntorchaudio\nnumpy>=1.25.0\nengine-helper\n');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: work, stdio: 'pipe', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
  git('init', '-q', '-b', 'master');
  for (const release of releases) {
    fs.writeFileSync(path.join(work, 'comfyui_version.py'), `__version__ = "${release.tag.replace(/^v/, '')}"\n`);
    fs.rmSync(path.join(work, 'SMOKE_FAILS'), { force: true });
    if (release.smokeFails) fs.writeFileSync(path.join(work, 'SMOKE_FAILS'), '');
    for (const [file, body] of Object.entries(release.files ?? {})) {
      fs.mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
      fs.writeFileSync(path.join(work, file), body);
    }
    git('add', '-A');
    git('commit', '-q', '-m', `release ${release.tag}`);
    git('tag', release.tag);
  }
  const bare = path.join(root, 'ComfyUI.git');
  execFileSync('git', ['clone', '-q', '--bare', work, bare], { stdio: 'pipe' });
  return bare;
}

/** The environment that sends ENGINE_REPO_URL to the local repository. */
export function gitMappingEnv(bare: string): Record<string, string> {
  return {
    GIT_CONFIG_COUNT: '2',
    GIT_CONFIG_KEY_0: `url.file://${bare}.insteadOf`,
    GIT_CONFIG_VALUE_0: ENGINE_REPO_URL,
    GIT_CONFIG_KEY_1: 'protocol.file.allow',
    GIT_CONFIG_VALUE_1: 'always',
  };
}

/** The fake torch: a CPU build (no CUDA, no ROCm, no MPS), the way the checks ask it. */
export const TORCH_SOURCE = `__version__ = "2.5.1+cpu"
class _Cuda:
    @staticmethod
    def is_available():
        return False
cuda = _Cuda()
class _Version:
    hip = None
    cuda = None
version = _Version()
class _Mps:
    @staticmethod
    def is_available():
        return False
class _Backends:
    mps = _Mps()
backends = _Backends()
`;

/** The wheels: torch/torchvision/torchaudio (the torch index's `cpu` build) and the engine's other requirements (the general index). */
export function makeWheels(root: string): { torch: string; general: string } {
  const torch = path.join(root, 'wheels-torch-cpu');
  const general = path.join(root, 'wheels-general');
  fs.mkdirSync(torch, { recursive: true });
  fs.mkdirSync(general, { recursive: true });
  const wheel = (dir: string, name: string, version: string, source: string) => execFileSync('python3', [path.join(FIXTURES, 'make-wheel.py'), dir, name, version, source], { stdio: 'pipe' });
  wheel(torch, 'torch', '2.5.1+cpu', TORCH_SOURCE);
  wheel(torch, 'torchvision', '0.20.1+cpu', '__version__ = "0.20.1+cpu"\n');
  wheel(torch, 'torchaudio', '2.5.1+cpu', '__version__ = "2.5.1+cpu"\n');
  wheel(general, 'numpy', '2.1.3', '__version__ = "2.1.3"\n');
  wheel(general, 'numpy', '1.26.4', '__version__ = "1.26.4"\n');
  wheel(general, 'engine-helper', '1.0.0', 'VERSION = "1.0.0"\n');
  wheel(general, 'node-helper', '0.3.0', 'VERSION = "0.3.0"\n');
  return { torch, general };
}

export interface FakeIndex {
  /** `http://127.0.0.1:<port>/simple` */
  simpleUrl: string;
  /** `http://127.0.0.1:<port>/torch` (builds are its subfolders) */
  torchUrl: string;
  /** Requests answered, as `METHOD path`. */
  requests: string[];
  /** Hold every answer this long (a stuck index, for timeouts). */
  delayMs: number;
  close(): Promise<void>;
}

/** A package index answering like PyPI's simple API (PEP 503) over the wheel folders. */
export async function startFakeIndex(wheels: { torch: string; general: string }): Promise<FakeIndex> {
  const normal = (name: string) => name.toLowerCase().replace(/[-_.]+/g, '-');
  const listing = (dir: string, project: string) =>
    fs
      .readdirSync(dir)
      .filter((file) => normal(file.split('-')[0]!) === project)
      .map((file) => {
        const sha = crypto.createHash('sha256').update(fs.readFileSync(path.join(dir, file))).digest('hex');
        return `<a href="/files/${path.basename(dir)}/${encodeURIComponent(file)}#sha256=${sha}">${file}</a><br/>`;
      });
  const state = { requests: [] as string[], delayMs: 0 };
  const server = http.createServer((req, res) => {
    state.requests.push(`${req.method} ${req.url}`);
    setTimeout(() => {
      const url = decodeURIComponent((req.url ?? '/').split('?')[0]!);
      const simple = /^\/simple\/([^/]+)\/?$/.exec(url);
      const torch = /^\/torch\/([^/]+)\/([^/]+)\/?$/.exec(url);
      const file = /^\/files\/([^/]+)\/([^/]+)$/.exec(url);
      let links: string[] | null = null;
      if (simple) links = listing(wheels.general, normal(simple[1]!));
      // Only the CPU build exists here; another build's folder is missing, as on a mirror without it.
      if (torch && torch[1] === 'cpu') links = listing(wheels.torch, normal(torch[2]!));
      if (links && links.length > 0) {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(`<!DOCTYPE html><html><body>${links.join('\n')}</body></html>`);
        return;
      }
      if (file) {
        const dir = [wheels.torch, wheels.general].find((d) => path.basename(d) === file[1]);
        const full = dir ? path.join(dir, file[2]!) : null;
        if (full && fs.existsSync(full)) {
          res.writeHead(200, { 'content-type': 'application/octet-stream' });
          res.end(fs.readFileSync(full));
          return;
        }
      }
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }, state.delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    simpleUrl: `http://127.0.0.1:${port}/simple`,
    torchUrl: `http://127.0.0.1:${port}/torch`,
    get requests() {
      return state.requests;
    },
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(ms: number) {
      state.delayMs = ms;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
