/**
 * Fake GPU tools for a machine without a GPU: executables named `nvidia-smi`, `rocm-smi`,
 * `system_profiler` and `sw_vers` that print what the real ones print (captures in
 * tests/fixtures/gpu/) for the arguments Studio passes, and refuse others the way the real ones do.
 * The returned folder goes first on the PATH of the Studio (or probe) under test.
 */
import fs from 'node:fs';
import path from 'node:path';
import { APP_ROOT } from '../../server/config.js';

export const GPU_FIXTURES = path.join(APP_ROOT, 'tests/fixtures/gpu');

export interface FakeGpuTools {
  /** `nvidia-<driver>-<board>` (a .txt banner and a .csv device list), or `no-driver` (exit 9). */
  nvidia?: string;
  /** `rocm-<release>-<board>.json`; `rocmVersion` is written to the tree's `.info/version`. */
  rocm?: string;
  rocmVersion?: string;
  /** `macos-*.json` plus the macOS release `sw_vers -productVersion` prints. */
  macos?: string;
  macosVersion?: string;
}

/** Write the fake tools into `dir` (rocm-smi under `dir/rocm/bin`, like a ROCm tree); returns the PATH entries to put first. */
export function writeFakeGpuTools(dir: string, tools: FakeGpuTools): string[] {
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  const entries = [bin];
  const quote = (file: string) => `'${file.replace(/'/g, `'\\''`)}'`;
  if (tools.nvidia === 'no-driver') {
    script(path.join(bin, 'nvidia-smi'), `cat ${quote(path.join(GPU_FIXTURES, 'nvidia-no-driver.txt'))}\nexit 9`);
  } else if (tools.nvidia) {
    const base = path.join(GPU_FIXTURES, tools.nvidia);
    script(
      path.join(bin, 'nvidia-smi'),
      [
        'if [ $# -eq 0 ]; then cat ' + quote(`${base}.txt`) + '; exit 0; fi',
        'if [ "$1" = "--query-gpu=index,name,memory.total,driver_version" ] && [ "$2" = "--format=csv,noheader,nounits" ]; then cat ' + quote(`${base}.csv`) + '; exit 0; fi',
        'echo "Invalid combination of input arguments. Please run \'nvidia-smi -h\' for help."',
        'exit 2',
      ].join('\n'),
    );
  }
  if (tools.rocm) {
    const root = path.join(dir, 'rocm');
    fs.mkdirSync(path.join(root, 'bin'), { recursive: true });
    if (tools.rocmVersion) {
      fs.mkdirSync(path.join(root, '.info'), { recursive: true });
      fs.writeFileSync(path.join(root, '.info', 'version'), `${tools.rocmVersion}\n`);
    }
    script(
      path.join(root, 'bin', 'rocm-smi'),
      [
        'case "$*" in *--json*) cat ' + quote(path.join(GPU_FIXTURES, tools.rocm)) + '; exit 0;; esac',
        'echo "usage: rocm-smi [-h] [-V] [-d DEVICE [DEVICE ...]]" >&2',
        'exit 2',
      ].join('\n'),
    );
    entries.push(path.join(root, 'bin'));
  }
  if (tools.macos) {
    script(path.join(bin, 'system_profiler'), `[ "$1 $2" = "SPDisplaysDataType -json" ] || exit 1\ncat ${quote(path.join(GPU_FIXTURES, tools.macos))}`);
    script(path.join(bin, 'sw_vers'), `[ "$1" = "-productVersion" ] && echo ${quote(tools.macosVersion ?? '14.5')}`);
  }
  return entries;
}

/** A PATH with the fake tools first and only the system folders after (no real GPU tool can leak in). */
export function fakeGpuPath(entries: readonly string[]): string {
  return [...entries, '/usr/local/bin', '/usr/bin', '/bin'].join(path.delimiter);
}

function script(file: string, body: string): void {
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
}
