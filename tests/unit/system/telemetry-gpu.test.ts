/**
 * The telemetry's GPU reading with real programs at the `nvidia-smi` path: a missing program is
 * not looked for on every sample (starting a child blocks the event loop for a few ms), only
 * again after the recheck interval, so a driver installed meanwhile does show; a program that is
 * there but fails is asked every time.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { silentLogger } from '../../../server/logging.js';
import { TelemetryService } from '../../../server/system/telemetry.service.js';

let dir: string;
let smi: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-telemetry-'));
  smi = path.join(dir, 'nvidia-smi');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function service(gpuRecheckMs: number): TelemetryService {
  return new TelemetryService({ cgroupRoot: dir, nvidiaSmi: smi, env: { PATH: process.env.PATH }, dataDir: dir, sampleMs: 60_000, logger: silentLogger, gpuRecheckMs });
}

/** Put a program at the `nvidia-smi` path: `script` is the shell body. */
function install(script: string): void {
  const temp = `${smi}.tmp`;
  fs.writeFileSync(temp, `#!/bin/sh\n${script}\n`, { mode: 0o755 });
  fs.renameSync(temp, smi);
}

const ANSWER = 'echo "Fake GPU, 8192, 1024, 5, 40"';

it('looks for a missing nvidia-smi again only after the recheck interval', async () => {
  const telemetry = service(2_000);
  expect((await telemetry.current()).gpu).toBeNull();
  install(ANSWER);
  // Within the interval the program is not looked for: still no GPU.
  expect((await telemetry.current()).gpu).toBeNull();
  await new Promise((r) => setTimeout(r, 2_100));
  expect((await telemetry.current()).gpu).toMatchObject({ name: 'Fake GPU', vram_total: 8192 * 1024 * 1024, util_percent: 5, temp_c: 40 });
});

it('asks an nvidia-smi that is there but fails on every sample', async () => {
  const telemetry = service(60_000);
  install('echo "NVIDIA-SMI has failed" >&2; exit 9');
  expect((await telemetry.current()).gpu).toBeNull();
  install(ANSWER);
  expect((await telemetry.current()).gpu?.name).toBe('Fake GPU');
});

it('finds an nvidia-smi named without a path on the children\'s PATH, and none where PATH lacks it', async () => {
  install(ANSWER);
  const onPath = (PATH: string) => new TelemetryService({ cgroupRoot: dir, nvidiaSmi: 'nvidia-smi', env: { PATH }, dataDir: dir, sampleMs: 60_000, logger: silentLogger });
  expect((await onPath(`${path.join(dir, 'missing')}${path.delimiter}${dir}`).current()).gpu?.name).toBe('Fake GPU');
  expect((await onPath(path.join(dir, 'missing')).current()).gpu).toBeNull();
  // There but not executable: not a program to start.
  fs.chmodSync(smi, 0o644);
  expect((await onPath(dir).current()).gpu).toBeNull();
});
