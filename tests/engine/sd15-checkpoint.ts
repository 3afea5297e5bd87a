/**
 * The random-weight SD 1.5 checkpoint of the sampler test, made once by the real engine's own
 * model code (make-sd15-checkpoint.py, run by the engine's Python in its folder) and cached under
 * ~/.cache/studio/real-engine/<engine commit>/ by the script's hash: a changed script makes a new one.
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The name the shipped workflow asks for (the usual half-precision SD 1.5 file). */
export const SD15_FILE = 'v1-5-pruned-emaonly-fp16.safetensors';
const SCRIPT = path.join(import.meta.dirname, 'make-sd15-checkpoint.py');

/**
 * Debian sid's tokenizers 0.23.1 (the real engine's) refuses `RobertaProcessing(cls=…)` by keyword
 * ("unexpected keyword argument 'cls'": the binding's parameter clashes with Python's own `cls`),
 * which transformers 5.12's CLIPTokenizer passes: no CLIP text encoder can be made, so no SD 1.5
 * checkpoint loads. This user-site hook passes the same arguments by position. It is put on the
 * engine's Python through PYTHONUSERBASE (Studio passes PYTHON* to its engine), for this test only.
 */
const TOKENIZERS_FIX = `# Studio's engine tests: Debian's tokenizers 0.23.1 takes RobertaProcessing's cls only by position.
import tokenizers.processors as _processors
_made = _processors.RobertaProcessing
def RobertaProcessing(sep, cls, trim_offsets=True, add_prefix_space=True):
    return _made(sep, cls, trim_offsets, add_prefix_space)
_processors.RobertaProcessing = RobertaProcessing
`;

/** Write the hook under `dir` (inside REALENGINE_HOME, so the chroot sees it); returns the PYTHONUSERBASE to set. */
export function writeTokenizersFix(dir: string, python: string): string {
  const version = spawnSync(python, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { cwd: dir, encoding: 'utf8' }).stdout.trim();
  const site = path.join(dir, 'userbase', 'lib', `python${version}`, 'site-packages');
  fs.mkdirSync(site, { recursive: true });
  fs.writeFileSync(path.join(site, 'usercustomize.py'), TOKENIZERS_FIX);
  return path.join(dir, 'userbase');
}

export interface Checkpoint {
  file: string;
  /** Made by this run (else taken from the cache), with what making it cost. */
  made: { seconds: number; line: string } | null;
}

/** The cached checkpoint, made first when absent. `work` is a folder inside REALENGINE_HOME. */
export function sd15Checkpoint(engineDir: string, python: string, work: string, userBase: string): Checkpoint {
  const script = fs.readFileSync(SCRIPT);
  const commit = spawnSync('git', ['-C', engineDir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).stdout.trim().slice(0, 12);
  const hash = crypto.createHash('sha256').update(script).digest('hex').slice(0, 12);
  const cached = path.join(os.homedir(), '.cache', 'studio', 'real-engine', commit, `sd15-random-${hash}.safetensors`);
  if (fs.existsSync(cached)) return { file: cached, made: null };
  fs.mkdirSync(path.dirname(cached), { recursive: true });
  // The engine's Python may see only its own tree (a chroot): the script and its output live in `work`.
  fs.mkdirSync(work, { recursive: true });
  fs.writeFileSync(path.join(work, 'make-sd15-checkpoint.py'), script);
  const out = path.join(work, 'sd15.safetensors');
  const started = Date.now();
  const run = spawnSync(python, [path.join(work, 'make-sd15-checkpoint.py'), out], { cwd: engineDir, env: { ...process.env, PWD: engineDir, PYTHONUSERBASE: userBase }, encoding: 'utf8', timeout: 900_000 });
  const line = run.stdout.split('\n').find((l) => l.startsWith('STUDIO-CHECKPOINT ')) ?? '';
  if (run.status !== 0 || !line) throw new Error(`making the SD 1.5 checkpoint failed (exit ${run.status}): ${run.stderr.trim().split('\n').slice(-8).join('\n')}`);
  fs.copyFileSync(out, `${cached}.tmp`);
  fs.renameSync(`${cached}.tmp`, cached);
  fs.rmSync(out);
  // One made by an earlier version of the script is not wanted any more (each is 350 MB).
  for (const old of fs.readdirSync(path.dirname(cached))) {
    if (old.startsWith('sd15-random-') && old !== path.basename(cached)) fs.rmSync(path.join(path.dirname(cached), old), { force: true });
  }
  return { file: cached, made: { seconds: (Date.now() - started) / 1000, line } };
}
