/**
 * Process-group plumbing for the supervisor. On POSIX each supervised child leads its own process
 * group (spawned `detached`), so one signal to `-pid` reaches everything it started. Windows has
 * no groups; `taskkill /T` walks the tree instead.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';

const isWindows = process.platform === 'win32';

export type GroupSignal = 'SIGTERM' | 'SIGKILL';

export interface SpawnGroupOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/** Spawn `command` as the leader of a new process group, with stdout and stderr piped. */
export function spawnInGroup(command: string, args: readonly string[], options: SpawnGroupOptions): ChildProcess {
  return spawn(command, args, {
    cwd: options.cwd,
    // Undefined keeps Node's default: the child inherits the parent's environment.
    env: options.env,
    // On Windows `detached` opens a new console window instead of making a group.
    detached: !isWindows,
    windowsHide: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * Send `signal` to the whole group led by `pid` (the tree on Windows). Never throws: a group
 * already gone is the goal, and this runs inside exit handlers and timers.
 */
export function signalGroup(pid: number, signal: GroupSignal): void {
  if (isWindows) {
    // Without /F taskkill asks politely (WM_CLOSE); console programs only honour /F.
    const args = ['/pid', String(pid), '/T', ...(signal === 'SIGKILL' ? ['/F'] : [])];
    try {
      spawn('taskkill', args, { stdio: 'ignore', windowsHide: true }).on('error', () => {});
    } catch {}
    return;
  }
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: nothing left. EPERM: the group is no longer ours (pid reused); leave it alone.
  }
}

/**
 * Whether any process of group `pgid` is still alive. Zombies do not count: where PID 1 does not
 * reap orphans (some containers) a killed grandchild stays a zombie forever, and waiting for it
 * would turn every stop into a full timeout.
 */
export async function groupHasLiveMembers(pgid: number): Promise<boolean> {
  if (isWindows) return false;
  if (process.platform !== 'linux') {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  }
  let entries: string[];
  try {
    entries = await fs.readdir('/proc');
  } catch {
    return false;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readStat(Number(entry));
    if (stat && stat.pgrp === pgid && stat.state !== 'Z' && stat.state !== 'X') return true;
  }
  return false;
}

async function readStat(pid: number): Promise<{ state: string; pgrp: number } | null> {
  let text: string;
  try {
    text = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null; // exited while we were looking
  }
  // The command name sits in parentheses and may itself contain spaces or ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const pgrp = Number(fields[2]);
  return state === undefined || !Number.isInteger(pgrp) ? null : { state, pgrp };
}
