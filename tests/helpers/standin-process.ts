/**
 * A stand-in engine as a separate process on its own port, with folders of its own (not Studio's):
 * what a ComfyUI on another machine looks like to Studio. Optionally with model files of its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { APP_ROOT } from '../../server/config.js';
import { writeExtraModelPaths } from '../../server/engine/extra-model-paths.js';

export interface StandinProcess {
  url: string;
  dir: string;
  child: ChildProcess;
  /** SIGKILL: the engine dies mid-job. */
  kill(): void;
  stop(): Promise<void>;
}

/** Start a stand-in; `models` are planted under its own models folder (`{checkpoints: ['x.safetensors']}`). */
export async function startStandin(options: { stepMs?: number; nodeMs?: number; models?: Record<string, readonly string[]> } = {}): Promise<StandinProcess> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'standin-remote-'));
  const models = path.join(dir, 'models');
  for (const [folder, names] of Object.entries(options.models ?? {})) {
    for (const name of names) {
      fs.mkdirSync(path.join(models, folder), { recursive: true });
      fs.writeFileSync(path.join(models, folder, name), 'stand-in weights');
    }
  }
  const yaml = path.join(dir, 'extra_model_paths.yaml');
  writeExtraModelPaths(yaml, models);
  const args = ['--import', 'tsx', 'server/standin/main.ts', '--port', '0', '--host', '127.0.0.1', '--input-directory', path.join(dir, 'input'), '--output-directory', path.join(dir, 'output'),
    '--temp-directory', path.join(dir, 'temp'), '--step-ms', String(options.stepMs ?? 10), '--node-ms', String(options.nodeMs ?? 20), '--extra-model-paths-config', yaml, '--parent-pid', String(process.pid)];
  const child = spawn(process.execPath, args, { cwd: APP_ROOT, env: { ...process.env, STUDIO_DIR: path.join(dir, 'studio') }, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.stderr!.on('data', () => undefined);
    child.once('exit', (code) => reject(new Error(`stand-in exited early with ${code}: ${out}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url,
    dir,
    child,
    kill: () => void child.kill('SIGKILL'),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
