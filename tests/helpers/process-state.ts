/**
 * Whether a child process is still there, for tests that check a stop or a kill left nothing
 * running behind.
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
