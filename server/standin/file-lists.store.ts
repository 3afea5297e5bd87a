/**
 * The file lists the engine puts into its combo inputs on every `/object_info` call and checks
 * prompts against: model files from its model folders (`folder_paths.get_filename_list`) and
 * input files for the Load* nodes, and which list fills which combo input. The stand-in reads the same
 * `extra_model_paths.yaml` a managed engine gets, so a workflow is accepted exactly when its model
 * files are where the engine looks.
 */
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { isRecord } from '../engine/prompt-rules/node-inputs.js';
import type { ListSource } from '../engine/prompt-rules/list-sources.js';

/** Engine folder name → the directories searched for it, in order. */
export type ModelFolders = ReadonlyMap<string, readonly string[]>;

/** `folder_paths.supported_pt_extensions`: what counts as a model file. */
const MODEL_EXTENSIONS = new Set(['.ckpt', '.pt', '.pt2', '.bin', '.pth', '.safetensors', '.pkl', '.sft']);
/** The engine folds its legacy folder names into the current ones (`map_legacy`). */
const LEGACY_FOLDERS: Record<string, string> = { unet: 'diffusion_models', clip: 'text_encoders' };

const IMAGE_EXTENSIONS = new Set(['.png', '.jpg', '.jpeg', '.webp', '.gif', '.bmp', '.tif', '.tiff']);
const VIDEO_EXTENSIONS = new Set(['.mp4', '.webm', '.mkv', '.mov', '.avi', '.m4v', '.gif']);

/** Reads the lists from disk on each call, like the engine re-scanning its folders. */
export class FileLists {
  constructor(
    private readonly inputDir: string,
    private readonly modelFolders: ModelFolders,
  ) {}

  /** The current choices for a source. */
  list(source: ListSource): string[] {
    if ('input' in source) return listInputFiles(this.inputDir, source.input);
    return listModelFiles(this.modelFolders.get(source.models) ?? []);
  }
}

/** Top-level files of the input directory that the engine would list for an image or video combo. */
function listInputFiles(inputDir: string, kind: 'image' | 'video'): string[] {
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

/** Model files under the folders (recursive, `/`-separated relative names, sorted, no duplicates). */
export function listModelFiles(dirs: readonly string[]): string[] {
  const found = new Set<string>();
  for (const dir of dirs) {
    let names: string[];
    try {
      names = fs.readdirSync(dir, { recursive: true, encoding: 'utf8' });
    } catch {
      continue;
    }
    for (const name of names) {
      const rel = name.split(path.sep).join('/');
      if (rel.split('/').includes('.git') || !MODEL_EXTENSIONS.has(path.extname(rel).toLowerCase())) continue;
      if (fs.statSync(path.join(dir, name), { throwIfNoEntry: false })?.isFile()) found.add(rel);
    }
  }
  return [...found].sort();
}

/** Every model folder under one root, each named like the engine's folder (`<root>/<name>`). */
export function modelFoldersUnder(root: string, names: readonly string[]): Map<string, string[]> {
  const folders = new Map<string, string[]>();
  for (const name of names) addFolder(folders, name, path.join(root, name));
  return folders;
}

/**
 * The engine's `load_extra_path_config`: every section's keys are folder names whose values are
 * one path per line, relative to the section's `base_path` (or to the YAML file's folder).
 */
export function modelFoldersFromYaml(file: string): Map<string, string[]> {
  const parsed: unknown = YAML.parse(fs.readFileSync(file, 'utf8'));
  const folders = new Map<string, string[]>();
  if (!isRecord(parsed)) return folders;
  const yamlDir = path.dirname(path.resolve(file));
  for (const section of Object.values(parsed)) {
    if (!isRecord(section)) continue;
    const base = typeof section.base_path === 'string' ? path.resolve(yamlDir, expandHome(section.base_path)) : null;
    for (const [name, value] of Object.entries(section)) {
      if (name === 'base_path' || name === 'is_default' || typeof value !== 'string') continue;
      for (const line of value.split('\n').map((l) => l.trim()).filter(Boolean)) {
        addFolder(folders, name, path.resolve(base ?? yamlDir, expandHome(line)));
      }
    }
  }
  return folders;
}

function addFolder(folders: Map<string, string[]>, name: string, dir: string): void {
  const key = LEGACY_FOLDERS[name] ?? name;
  const list = folders.get(key) ?? [];
  if (!list.includes(dir)) list.push(dir);
  folders.set(key, list);
}

function expandHome(p: string): string {
  return p.startsWith('~') ? path.join(process.env.HOME ?? '', p.slice(1)) : p;
}
