/**
 * The node set the stand-in knows: by default the real engine 0.29.0 `/object_info` (all 818
 * built-in node types, shipped in `resources/standin/`) plus the custom-pack nodes the shipped
 * workflows use, with file combos filled from disk on every call like the engine does; or a
 * recorded dump given with `--object-info FILE`, served verbatim.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isRecord, type NodeInfo } from '../engine/prompt-rules/node-inputs.js';
import type { FileLists } from './file-lists.store.js';
import { listSourceOf } from '../engine/prompt-rules/list-sources.js';

/** The engine's own node set, recorded from a real ComfyUI 0.29.0. */
const ENGINE_DUMP = 'object_info.comfyui-0.29.0.json';
/** Nodes of custom packs the shipped workflows need (VideoHelperSuite), as if installed. */
const CUSTOM_PACKS_DUMP = 'object_info.custom-packs.json';

export class NodeCatalog {
  private constructor(
    private readonly nodes: Readonly<Record<string, NodeInfo>>,
    /** The dump's own text, served as-is for `--object-info` (keeps 64-bit ints exact). */
    private readonly rawText: string | null,
    /** Live file lists (built-in set only); a recorded dump keeps the lists it was recorded with. */
    private readonly files: FileLists | null,
  ) {}

  /** The shipped node set; its file combos follow the input and model folders like the engine's do. */
  static builtIn(resourcesDir: string, files: FileLists, customNodes: Record<string, NodeInfo> = {}): NodeCatalog {
    const nodes: Record<string, NodeInfo> = {};
    for (const file of [ENGINE_DUMP, CUSTOM_PACKS_DUMP]) {
      Object.assign(nodes, parseDump(fs.readFileSync(path.join(resourcesDir, file), 'utf8'), file));
    }
    // Loaded packages come after the engine's own nodes, as in the engine (which keeps the first).
    for (const [name, info] of Object.entries(customNodes)) if (!Object.hasOwn(nodes, name)) nodes[name] = info;
    return new NodeCatalog(nodes, null, files);
  }

  /** A recorded `/object_info` dump, served verbatim. */
  static fromFile(file: string): NodeCatalog {
    const text = fs.readFileSync(file, 'utf8');
    return new NodeCatalog(parseDump(text, file), text, null);
  }

  /** Whether model-file combos are checked (only when the lists come from real folders). */
  get checksFileLists(): boolean {
    return this.files !== null;
  }

  /** The definition of a class as recorded, or undefined when the engine would not know it. */
  get(classType: string): NodeInfo | undefined {
    return Object.hasOwn(this.nodes, classType) ? this.nodes[classType] : undefined;
  }

  /** The definition with today's file lists, as the engine's `INPUT_TYPES()` would return it. */
  live(classType: string): NodeInfo | undefined {
    const info = this.get(classType);
    return info && this.files ? withLiveLists(classType, info, this.files) : info;
  }

  get size(): number {
    return Object.keys(this.nodes).length;
  }

  /** The `GET /object_info` body. */
  listing(): string {
    if (this.rawText !== null) return this.rawText;
    const out: Record<string, NodeInfo> = {};
    for (const name of Object.keys(this.nodes)) out[name] = this.live(name) as NodeInfo;
    return JSON.stringify(out);
  }

  /** The `GET /object_info/{class}` body: `{}` for an unknown class, like the engine. */
  single(classType: string): string {
    const info = this.live(classType);
    return info ? JSON.stringify({ [classType]: info }) : '{}';
  }
}

/** Whether the class takes a hidden `UNIQUE_ID` (the engine then keys its cache by node id too). */
export function takesUniqueId(info: NodeInfo): boolean {
  const hidden = info.input?.hidden ?? {};
  return Object.values(hidden).some((v) => v === 'UNIQUE_ID' || (Array.isArray(v) && v[0] === 'UNIQUE_ID'));
}

/** A copy of `info` whose file combos list what is on disk now (static extras such as `pixel_space` kept after the files). */
function withLiveLists(classType: string, info: NodeInfo, files: FileLists): NodeInfo {
  let input = info.input;
  for (const category of ['required', 'optional'] as const) {
    const specs = info.input?.[category];
    if (!specs) continue;
    for (const [name, spec] of Object.entries(specs)) {
      const source = listSourceOf(classType, name);
      if (!source || !Array.isArray(spec)) continue;
      const [type, rawOptions] = spec as [unknown, unknown];
      const options = isRecord(rawOptions) ? rawOptions : {};
      // V1 combos carry the list as the type; V3 ("COMBO") keep it in options.options.
      const recorded = type === 'COMBO' ? options.options : type;
      if (!Array.isArray(recorded)) continue;
      const listed = [...files.list(source), ...recorded.filter((c) => typeof c === 'string' && !/\.[A-Za-z0-9]{1,12}$/.test(c))];
      const newSpec = type === 'COMBO' ? ['COMBO', { ...options, options: listed }] : [listed, ...spec.slice(1)];
      input = { ...input, [category]: { ...input?.[category], [name]: newSpec } };
    }
  }
  return input === info.input ? info : { ...info, input };
}

function parseDump(text: string, where: string): Record<string, NodeInfo> {
  const parsed: unknown = JSON.parse(text);
  if (!isRecord(parsed)) throw new Error(`${where}: object_info must be a JSON object`);
  return parsed as Record<string, NodeInfo>;
}
