/**
 * What "Build from source" will cost on this machine, asked before it starts: time from the cores,
 * disk from the free space where it builds. The base numbers were measured on a 2-core AMD EPYC
 * (ninja, `scripts/build-llama-server.mjs`, llama.cpp of node-llama-cpp 3.22.1): 221 ninja steps
 * in 355 s (the `.ninja_log`), the package tarball 36 MB, its git bundle 35 MB, the checked-out
 * source 209 MB, the finished build folder 58 MB (the source is removed at the end).
 */
import os from 'node:os';
import type { BuildEstimate } from '../../contracts/llm-runtimes.contract.js';
import { freeBytesOf } from '../../free-space.js';

const MB = 1024 * 1024;
const MEASURED = { cores: 2, compileSeconds: 355, fetchAndConfigureSeconds: 35, steps: 221 };
/** The peak: tarball + bundle + source + build folder, all present at once before the clean-up. */
const PEAK_BYTES = (36 + 35 + 209 + 58) * MB;
const KEPT_BYTES = 60 * MB;

/** The estimate for `cores` cores building in `cacheDir`. */
export async function buildEstimate(cacheDir: string, cores = os.availableParallelism()): Promise<BuildEstimate> {
  // Free space where it builds (freeBytesOf walks up to the nearest folder that exists).
  const free = await freeBytesOf(cacheDir);
  // Compiling scales with the cores the build is given (-j cores); fetching and configuring do not.
  const seconds = MEASURED.fetchAndConfigureSeconds + (MEASURED.compileSeconds * MEASURED.cores) / Math.max(1, cores);
  return {
    cores,
    seconds_low: Math.round(seconds),
    // A busy machine (other work on the same cores) takes longer: half again is the upper end.
    seconds_high: Math.round(seconds * 1.5),
    steps: MEASURED.steps,
    need_bytes: PEAK_BYTES,
    kept_bytes: KEPT_BYTES,
    free_bytes: free,
    enough_space: free === null || free >= PEAK_BYTES,
    basis: `measured: ${MEASURED.steps} compile steps took ${MEASURED.compileSeconds} s on ${MEASURED.cores} cores; scaled to ${cores} here`,
  };
}
