/**
 * The plan of ARCHITECTURE.md, checked against the code's own imports (drawn with the TypeScript
 * compiler's import scanner, type-only imports included): layers point one way, capabilities use
 * each other only along the arrows the plan names, the renderer sees only the wire contracts, and
 * no files import each other in a circle.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../../server/config.js';

const SCANNED = ['server', 'renderer/src', 'main', 'preload'];

/** Capability folders of server/ (everything else there is shared infrastructure or the root). */
const CAPABILITIES = new Set(['engine', 'workflows', 'jobs', 'batches', 'assets', 'catalog', 'downloads', 'presets', 'modelhub', 'modelhub-client', 'repohost', 'nodes', 'disk', 'llm', 'chatbot', 'system', 'gpu', 'setup', 'comfy-api', 'provenance', 'users', 'notifications']);
const COMPOSITION_ROOT = new Set(['server/studio.ts', 'server/studio-http.ts', 'server/studio-options.ts', 'server/main.ts']);

/** What one capability uses of another (ARCHITECTURE.md, "between capabilities"); nothing else. */
const CAPABILITY_ARROWS: Record<string, string[]> = {
  assets: ['engine'],
  batches: ['jobs', 'presets', 'workflows'],
  catalog: ['downloads', 'modelhub-client', 'repohost', 'workflows'],
  chatbot: ['system'],
  'comfy-api': ['engine', 'jobs'],
  disk: ['catalog', 'downloads', 'workflows'],
  engine: ['gpu'],
  jobs: ['engine', 'workflows'],
  llm: ['gpu'],
  modelhub: ['assets', 'catalog', 'modelhub-client'],
  nodes: ['engine', 'workflows'],
  presets: ['jobs', 'workflows'],
  provenance: ['engine', 'jobs', 'nodes'],
  setup: ['engine', 'gpu', 'nodes'],
  system: ['assets', 'workflows'],
  workflows: ['engine', 'assets'],
};

/** The stand-in's only imports outside its folder. */
const STANDIN_SHARES = new Set(['server/engine/engine-paths.ts', 'server/engine/view-file.ts', 'server/engine/extra-model-paths.ts', 'server/logging.ts', 'server/config.ts', 'server/http/host-guard.ts', 'server/http/contained-path.ts', 'server/png-chunks.ts']);

/** The engine's prompt rules (`engine/prompt-rules/`): Studio's pre-check and the stand-in's `/prompt` share them. */
const isStandinShare = (file: string) => STANDIN_SHARES.has(file) || file.startsWith('server/engine/prompt-rules/');

type Layer = 'contracts' | 'infra' | 'capability' | 'root' | 'standin' | 'renderer' | 'main' | 'preload';

function layerOf(file: string): Layer {
  if (file.startsWith('renderer/')) return 'renderer';
  if (file.startsWith('main/')) return 'main';
  if (file.startsWith('preload/')) return 'preload';
  if (COMPOSITION_ROOT.has(file)) return 'root';
  const folder = file.split('/')[1]!;
  if (folder === 'contracts') return 'contracts';
  if (folder === 'standin') return 'standin';
  if (CAPABILITIES.has(folder)) return 'capability';
  return 'infra';
}

function folderOf(file: string): string {
  return file.split('/')[1]!;
}

function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(APP_ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'dist') walk(rel);
      } else if (/\.(ts|vue)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(rel);
    }
  };
  for (const dir of SCANNED) if (fs.existsSync(path.join(APP_ROOT, dir))) walk(dir);
  return out;
}

/** The repository files `file` imports (relative specifiers only; packages are not part of the plan). */
function importsOf(file: string): string[] {
  let text = fs.readFileSync(path.join(APP_ROOT, file), 'utf8');
  if (file.endsWith('.vue')) text = [...text.matchAll(/<script[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]).join('\n');
  const found: string[] = [];
  for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
    if (!fileName.startsWith('.')) continue;
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), fileName)).replace(/\.js$/, '.ts');
    found.push(target);
  }
  return found;
}

const graph = new Map(sourceFiles().map((file) => [file, importsOf(file)]));

/** Every edge that breaks the plan, as `from -> to (why)`. */
function violations(): string[] {
  const out: string[] = [];
  for (const [from, targets] of graph) {
    const layer = layerOf(from);
    for (const to of targets) {
      const toLayer = layerOf(to);
      const bad = (why: string) => out.push(`${from} -> ${to} (${why})`);
      if (layer === 'renderer') {
        if (!to.startsWith('renderer/') && !to.startsWith('server/contracts/') && to !== 'preload/bridge.ts') bad('the renderer imports only server/contracts/ (and the preload bridge interface)');
        continue;
      }
      if (layer === 'preload' || layer === 'main') continue;
      if (toLayer === 'renderer' || toLayer === 'main' || toLayer === 'preload') bad('the server imports no front end');
      else if (layer === 'contracts' && toLayer !== 'contracts') bad('contracts import only contracts');
      else if (layer === 'infra' && (toLayer === 'capability' || toLayer === 'standin' || toLayer === 'root')) bad('shared infrastructure imports no capability');
      else if (layer === 'standin' && toLayer !== 'standin' && !isStandinShare(to)) bad('the stand-in imports only the shared engine rules');
      else if (layer === 'capability' && (toLayer === 'root' || toLayer === 'standin')) bad('capabilities never import the composition root or the stand-in');
      else if (layer === 'capability' && toLayer === 'capability') {
        const a = folderOf(from);
        const b = folderOf(to);
        if (a !== b && !CAPABILITY_ARROWS[a]?.includes(b)) bad(`${a} may not use ${b}: add the arrow to ARCHITECTURE.md and this test, or turn it around`);
      }
    }
  }
  return out;
}

/** Each circle of imports between files, as the list of files around it. */
function cycles(): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

describe('import graph', () => {
  it('finds the code (the scan itself works)', () => {
    expect(graph.size).toBeGreaterThan(300);
    expect(graph.get('server/studio-http.ts')).toContain('server/http/app.ts');
    expect(graph.get('renderer/src/api/socket.ts')).toContain('server/contracts/preview-frame.ts');
  });

  it('points every import down the layers and along the named capability arrows', () => {
    expect(violations()).toEqual([]);
  });

  it('has no files that import each other in a circle', () => {
    expect(cycles().map((c) => c.join(' -> '))).toEqual([]);
  });

  it('has no circle between the folders of shared infrastructure (events/ and http/ included)', () => {
    const folderArrows = new Map<string, Set<string>>();
    for (const [from, targets] of graph) {
      if (layerOf(from) !== 'infra' || from.split('/').length < 3) continue;
      for (const to of targets) {
        if (layerOf(to) !== 'infra' || to.split('/').length < 3 || folderOf(to) === folderOf(from)) continue;
        if (!folderArrows.has(folderOf(from))) folderArrows.set(folderOf(from), new Set());
        folderArrows.get(folderOf(from))!.add(folderOf(to));
      }
    }
    const reach = (from: string, seen = new Set<string>()): Set<string> => {
      for (const next of folderArrows.get(from) ?? []) if (!seen.has(next)) reach(next, seen.add(next));
      return seen;
    };
    expect(folderArrows.size).toBeGreaterThan(2);
    for (const folder of folderArrows.keys()) expect(reach(folder).has(folder), `${folder} imports reach back to it`).toBe(false);
  });

  it('has no circle between capabilities', () => {
    const reach = (from: string, seen = new Set<string>()): Set<string> => {
      for (const next of CAPABILITY_ARROWS[from] ?? []) if (!seen.has(next)) reach(next, seen.add(next));
      return seen;
    };
    for (const capability of Object.keys(CAPABILITY_ARROWS)) expect(reach(capability).has(capability), capability).toBe(false);
  });
});
