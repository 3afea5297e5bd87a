/**
 * The node set the stand-in knows: the built-in subset shipped in `resources/standin/object_info.json`,
 * or a full dump given with `--object-info FILE`. It answers `/object_info` and tells the validator
 * and executor what each class takes and returns.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { NodeInfo } from './standin.types.js';

/** One declared input of a node, in the engine's authoritative order. */
export interface InputDef {
  name: string;
  category: 'required' | 'optional';
  /** `"INT"`, `"IMAGE"`, `"COMBO"`, or a V1 combo's list of choices. */
  type: unknown;
  options: Record<string, unknown>;
}

const IMAGE_EXTENSIONS = new Set(['.png', '.jpg', '.jpeg', '.webp', '.gif', '.bmp', '.tif', '.tiff']);
const VIDEO_EXTENSIONS = new Set(['.mp4', '.webm', '.mkv', '.mov', '.avi', '.m4v', '.gif']);

/** Combo inputs the real engine fills from `input/` on every call; `kind` picks the file filter. */
const LIVE_FILE_LISTS: Record<string, { input: string; kind: 'image' | 'video' }> = {
  LoadImage: { input: 'image', kind: 'image' },
  LoadImageMask: { input: 'image', kind: 'image' },
  VHS_LoadVideo: { input: 'video', kind: 'video' },
  LoadVideo: { input: 'file', kind: 'video' },
};

export class NodeCatalog {
  private constructor(
    private readonly nodes: Readonly<Record<string, NodeInfo>>,
    /** The dump's own text, served as-is for `--object-info` (keeps 64-bit ints exact). */
    private readonly rawText: string | null,
  ) {}

  /** The shipped subset; its file lists follow the input directory like the engine's do. */
  static builtIn(resourcesDir: string): NodeCatalog {
    const text = fs.readFileSync(path.join(resourcesDir, 'object_info.json'), 'utf8');
    return new NodeCatalog(parseDump(text, 'built-in object_info.json'), null);
  }

  /** A recorded `/object_info` dump, served verbatim. */
  static fromFile(file: string): NodeCatalog {
    const text = fs.readFileSync(file, 'utf8');
    return new NodeCatalog(parseDump(text, file), text);
  }

  /** The definition of a class, or undefined when the engine would not know it. */
  get(classType: string): NodeInfo | undefined {
    return Object.hasOwn(this.nodes, classType) ? this.nodes[classType] : undefined;
  }

  get size(): number {
    return Object.keys(this.nodes).length;
  }

  /** The `GET /object_info` body. */
  listing(inputDir: string): string {
    if (this.rawText !== null) return this.rawText;
    const out: Record<string, NodeInfo> = {};
    for (const [name, info] of Object.entries(this.nodes)) out[name] = withLiveFileList(name, info, inputDir);
    return JSON.stringify(out);
  }

  /** The `GET /object_info/{class}` body: `{}` for an unknown class, like the engine. */
  single(classType: string, inputDir: string): string {
    const info = this.get(classType);
    if (!info) return '{}';
    const shown = this.rawText === null ? withLiveFileList(classType, info, inputDir) : info;
    return JSON.stringify({ [classType]: shown });
  }
}

/** Declared inputs (required, then optional) in `input_order`, falling back to key order for old dumps. */
export function inputDefs(info: NodeInfo): InputDef[] {
  const defs: InputDef[] = [];
  for (const category of ['required', 'optional'] as const) {
    const specs = info.input?.[category] ?? {};
    const order = info.input_order?.[category] ?? Object.keys(specs);
    for (const name of order) {
      const spec = specs[name];
      if (spec === undefined) continue;
      const [type, options] = Array.isArray(spec) ? spec : [spec, undefined];
      defs.push({ name, category, type, options: isRecord(options) ? options : {} });
    }
  }
  return defs;
}

/** Whether the class takes a hidden `UNIQUE_ID` (the engine then keys its cache by node id too). */
export function takesUniqueId(info: NodeInfo): boolean {
  const hidden = info.input?.hidden ?? {};
  return Object.values(hidden).some((v) => v === 'UNIQUE_ID' || (Array.isArray(v) && v[0] === 'UNIQUE_ID'));
}

/** The choices of a combo input (V1 list or V3 `"COMBO"`), or null when the input is not a combo. */
export function comboChoices(def: InputDef): unknown[] | null {
  if (Array.isArray(def.type)) return def.type;
  if (def.type === 'COMBO') return Array.isArray(def.options.options) ? def.options.options : [];
  return null;
}

/** Top-level files of the input directory that the engine would list for an image or video combo. */
export function listInputFiles(inputDir: string, kind: 'image' | 'video'): string[] {
  const wanted = kind === 'image' ? IMAGE_EXTENSIONS : VIDEO_EXTENSIONS;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(inputDir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => e.isFile() && wanted.has(path.extname(e.name).toLowerCase()))
    .map((e) => e.name)
    .sort();
}

function withLiveFileList(classType: string, info: NodeInfo, inputDir: string): NodeInfo {
  const live = LIVE_FILE_LISTS[classType];
  const spec = live ? info.input?.required?.[live.input] : undefined;
  if (!live || !Array.isArray(spec)) return info;
  const files = listInputFiles(inputDir, live.kind);
  const options = isRecord(spec[1]) ? spec[1] : {};
  // V1 combos carry the list as the type; V3 ("COMBO") keep it in options.options.
  const newSpec = spec[0] === 'COMBO' ? ['COMBO', { ...options, options: files }] : [files, ...spec.slice(1)];
  return { ...info, input: { ...info.input, required: { ...info.input?.required, [live.input]: newSpec } } };
}

function parseDump(text: string, where: string): Record<string, NodeInfo> {
  const parsed: unknown = JSON.parse(text);
  if (!isRecord(parsed)) throw new Error(`${where}: object_info must be a JSON object`);
  return parsed as Record<string, NodeInfo>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
