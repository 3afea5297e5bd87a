/**
 * Whether a child process is still there, and which processes run: for tests that check a stop
 * or a kill left nothing running behind.
 */
import fs from 'node:fs';

/** Alive and not a zombie (this container's PID 1 does not reap orphans, so zombies linger). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (process.platform !== 'linux') return true;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Command lines of this machine's processes (Linux /proc): to find a child a server started itself. */
export function commandLines(): string[] {
  const lines: string[] = [];
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      lines.push(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' '));
    } catch {}
  }
  return lines;
}
