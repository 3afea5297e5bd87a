/**
 * What the provenance tests share: a node package folder that is a git clone (two commits, an
 * origin), the model files of the LoRA workflow, its run, and a job's output PNG read back.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { pngTexts } from '../../server/provenance/png-text.js';
import { execute, plantModels, SHIPPED_MODELS, waitForJob } from './runner.js';
import type { TestStudio } from './studio.js';

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.org', '-c', 'user.name=t', '-c', 'init.defaultBranch=main', ...args], { cwd, stdio: 'pipe' }).toString().trim();

/** A bare origin with two commits of a node package; returns its URL and both commits. */
export function nodePackageOrigin(root: string): { url: string; commits: [string, string] } {
  const work = path.join(root, 'demo-pack-work');
  fs.mkdirSync(work, { recursive: true });
  git(work, 'init', '-q');
  fs.writeFileSync(path.join(work, '__init__.py'), 'NODE_CLASS_MAPPINGS = {}\n');
  git(work, 'add', '.');
  git(work, 'commit', '-qm', 'one');
  const first = git(work, 'rev-parse', 'HEAD');
  fs.writeFileSync(path.join(work, '__init__.py'), 'NODE_CLASS_MAPPINGS = {}\nVERSION = 2\n');
  git(work, 'commit', '-qam', 'two');
  const second = git(work, 'rev-parse', 'HEAD');
  const bare = path.join(root, 'demo-pack.git');
  git(root, 'clone', '-q', '--bare', work, bare);
  return { url: `file://${bare}`, commits: [first, second] };
}

/** Clone the package into a data folder's custom_nodes at `commit` (before that Studio starts). */
export function installNodePackage(studioDir: string, url: string, commit: string): void {
  const dir = path.join(studioDir, 'engine', 'custom_nodes');
  fs.mkdirSync(dir, { recursive: true });
  git(dir, 'clone', '-q', url, 'demo-pack');
  git(path.join(dir, 'demo-pack'), 'checkout', '-q', commit);
}

export const LORA_BYTES = Buffer.from('stand-in LoRA weights');

/** The LoRA workflow's models (and the LoRA unless left out). */
export function plantLoraModels(studioDir: string, withLora = true): void {
  plantModels(studioDir, SHIPPED_MODELS);
  if (!withLora) return;
  fs.mkdirSync(path.join(studioDir, 'models', 'loras'), { recursive: true });
  fs.writeFileSync(path.join(studioDir, 'models', 'loras', 'style.safetensors'), LORA_BYTES);
}

export const LORA_PARAMS = {
  positive: 'a lighthouse on a cliff, storm: "dramatic", oil painting',
  negative: 'blurry, text',
  steps: 12,
  seed: 4242,
  width: 832,
  height: 1216,
  loras: [{ name: 'style.safetensors', strength: 0.7, strength_clip: 1 }],
};

/** Run the LoRA workflow; the finished job's id. */
export async function runLoraJob(t: TestStudio): Promise<string> {
  const { prompt_id } = await execute(t.api, 'txt2img-sdxl-lora', { params: LORA_PARAMS });
  await waitForJob(t.api, prompt_id);
  return prompt_id;
}

/** The job's one output PNG in its folder's `final/`. */
export async function outputPng(t: TestStudio, promptId: string): Promise<Buffer> {
  const job = (await (await t.api(`/api/admin/history/${promptId}`)).json()) as { output_dir: string };
  const final = path.join(t.dir, 'assets', 'output', job.output_dir, 'final');
  const name = fs.readdirSync(final).find((f) => f.endsWith('.png'));
  if (!name) throw new Error(`no PNG in ${final}`);
  return fs.readFileSync(path.join(final, name));
}

/** The PNG without its text chunks: what is left is the image itself, byte for byte. */
export function withoutText(png: Buffer): Buffer {
  const parts = [png.subarray(0, 8)];
  for (let offset = 8; offset + 12 <= png.length; ) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    if (!['tEXt', 'iTXt', 'zTXt'].includes(type)) parts.push(png.subarray(offset, offset + 12 + length));
    offset += 12 + length;
  }
  return Buffer.concat(parts);
}

export const textOf = (png: Buffer, key: string) => pngTexts(png).find(([k]) => k === key)?.[1];
export const pixels = (png: Buffer) => sharp(png).raw().toBuffer();
