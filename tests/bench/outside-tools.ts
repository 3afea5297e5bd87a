/**
 * Some benchmarks measure against an outside tool (libvips' CLI, curl, zip). A machine without it
 * cannot run that comparison, but it can run every other benchmark: the part that needs the tool
 * skips with the reason instead of ending `npm run bench`.
 */
import { spawnSync } from 'node:child_process';

/** Debian packages that provide the tools the benchmarks use, for the skip message. */
const PACKAGES: Record<string, string> = { vipsthumbnail: 'libvips-tools', curl: 'curl', zip: 'zip', unzip: 'unzip', openssl: 'openssl' };

/** Why `tools` cannot all be run here (the first one missing from PATH), or null when they can. */
export function missingTools(...tools: string[]): string | null {
  for (const tool of tools) {
    const probe = spawnSync(tool, ['--version'], { stdio: 'ignore' });
    if ((probe.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
      const pkg = PACKAGES[tool];
      return `${tool} is not installed${pkg ? `; Debian: apt-get install ${pkg}` : ''}`;
    }
  }
  return null;
}

/** Print the line a skipped benchmark leaves in the run's output. */
export function skipped(name: string, reason: string): void {
  console.log(`${name}: skipped (${reason})`);
}
