import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChildSupervisor, SupervisorStateError, type ChildState, type ChildStatus, type SupervisorOptions } from '../../../server/process/supervisor.js';
import { freePort } from '../../helpers/ports.js';
import { isAlive } from '../../helpers/process-state.js';
import { until } from '../../helpers/studio-ws.js';

const CHILDREN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/children');
const posixOnly = process.platform === 'win32' ? it.skip : it;

let tmp: string;
const supervisors: ChildSupervisor[] = [];

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
});

afterEach(async () => {
  await Promise.all(supervisors.splice(0).map((s) => s.stop()));
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** A supervisor running `script` from the fixtures with `--port <free port>` prepended to `args`. */
async function supervise(script: string, args: string[], options: Partial<SupervisorOptions> = {}) {
  const port = await freePort();
  const supervisor = new ChildSupervisor({
    name: 'child',
    command: process.execPath,
    args: [path.join(CHILDREN, script), '--port', String(port), ...args],
    healthUrl: `http://127.0.0.1:${port}/health`,
    readyTimeoutMs: 10_000,
    healthIntervalMs: 25,
    logFile: path.join(tmp, 'logs', 'child.log'),
    stopTimeoutMs: 2000,
    backoffBaseMs: 50,
    ...options,
  });
  supervisors.push(supervisor);
  const statuses: ChildStatus[] = [];
  const states: ChildState[] = [];
  supervisor.onStateChange((s) => {
    states.push(s);
    if (statuses.at(-1) !== s.status) statuses.push(s.status);
  });
  return { supervisor, statuses, states, port };
}

describe('ChildSupervisor', () => {
  it('resolves start() once the health URL answers and reports running', async () => {
    const { supervisor, statuses, port } = await supervise('health-server.mjs', ['--delay-ms', '200']);
    await supervisor.start();
    const state = supervisor.state;
    expect(state.status).toBe('running');
    expect(state.pid).toBeTypeOf('number');
    expect(state.startedAt).toBeTypeOf('number');
    expect(statuses).toEqual(['starting', 'running']);
    const res = await fetch(`http://127.0.0.1:${port}/health`);
    expect(res.status).toBe(200);

    await supervisor.stop();
    expect(supervisor.state.status).toBe('stopped');
    expect(supervisor.state.pid).toBeNull();
    expect(isAlive(state.pid!)).toBe(false);
    expect(statuses).toEqual(['starting', 'running', 'stopping', 'stopped']);
  });

  it('refuses a double start, while starting and while running', async () => {
    const { supervisor } = await supervise('health-server.mjs', ['--delay-ms', '300']);
    const first = supervisor.start();
    await expect(supervisor.start()).rejects.toBeInstanceOf(SupervisorStateError);
    await first;
    await expect(supervisor.start()).rejects.toThrow(/already running/);
    expect(supervisor.state.status).toBe('running');
  });

  it('restarts a child that crashes during start, with doubling backoff, until it comes up', async () => {
    const counter = path.join(tmp, 'launches');
    const { supervisor, statuses, states } = await supervise('flaky.mjs', ['--counter-file', counter, '--crash-times', '3']);
    await expect(supervisor.start()).rejects.toThrow(/child exited with code 1: crash #1/);
    await until(() => supervisor.state.status === 'running', 'running');
    expect(statuses).toEqual(['starting', 'restarting', 'starting', 'restarting', 'starting', 'restarting', 'starting', 'running']);
    const delays = states.filter((s) => s.status === 'restarting').map((s) => s.restartDelayMs);
    expect(delays).toEqual([50, 100, 200]);
    expect(supervisor.state.restarts).toBe(3);
    expect(fs.readFileSync(counter, 'utf8')).toBe('4');
    expect(supervisor.state.stderrTail).toEqual(['crash #1', 'crash #2', 'crash #3']);
  });

  it('restarts a child that crashes after it was running', async () => {
    const counter = path.join(tmp, 'launches');
    const { supervisor, statuses } = await supervise('flaky.mjs', [
      '--counter-file', counter, '--crash-times', '1', '--crash-after-ms', '100',
    ]);
    await supervisor.start();
    await until(() => supervisor.state.restarts === 1, 'the crash');
    await until(() => supervisor.state.status === 'running', 'running again');
    expect(statuses).toEqual(['starting', 'running', 'restarting', 'starting', 'running']);
    expect(supervisor.state.lastExit).toEqual({ code: 1, signal: null });
    expect(supervisor.state.lastError).toBe('child exited with code 1: crash #1');
  });

  it('gives up after maxRestarts consecutive crashes and keeps the stderr tail', async () => {
    const counter = path.join(tmp, 'launches');
    const { supervisor, statuses, states } = await supervise('flaky.mjs', ['--counter-file', counter], {
      maxRestarts: 2,
      backoffBaseMs: 20,
      stderrTailLines: 2,
    });
    await expect(supervisor.start()).rejects.toThrow();
    await until(() => supervisor.state.status === 'crashed', 'crashed');
    expect(statuses).toEqual(['starting', 'restarting', 'starting', 'restarting', 'starting', 'crashed']);
    expect(states.filter((s) => s.status === 'restarting').map((s) => s.restartDelayMs)).toEqual([20, 40]);
    const state = supervisor.state;
    expect(state.restarts).toBe(2);
    expect(state.pid).toBeNull();
    expect(state.lastError).toBe('child exited with code 1: crash #3');
    expect(state.stderrTail).toEqual(['crash #2', 'crash #3']);
    expect(fs.readFileSync(counter, 'utf8')).toBe('3');
    // stop() leaves the visible crashed state alone; start() is allowed again.
    await supervisor.stop();
    expect(supervisor.state.status).toBe('crashed');
  });

  it('forgets earlier crashes once the child has run for stableAfterMs', async () => {
    const counter = path.join(tmp, 'launches');
    const { supervisor, states } = await supervise(
      'flaky.mjs',
      ['--counter-file', counter, '--crash-times', '3', '--crash-after-ms', '500'],
      { maxRestarts: 1, stableAfterMs: 20 },
    );
    await supervisor.start();
    await until(() => supervisor.state.restarts === 3 && supervisor.state.status === 'running', 'the fourth launch');
    // Each crash came after a stable run, so each counts as the first: no give-up, no growth.
    expect(states.filter((s) => s.status === 'restarting').map((s) => s.restartDelayMs)).toEqual([50, 50, 50]);
    expect(states.some((s) => s.status === 'crashed')).toBe(false);
  });

  it('caps the backoff at backoffMaxMs', async () => {
    const counter = path.join(tmp, 'launches');
    const { supervisor, states } = await supervise('flaky.mjs', ['--counter-file', counter], {
      maxRestarts: 4,
      backoffBaseMs: 20,
      backoffMaxMs: 50,
    });
    await expect(supervisor.start()).rejects.toThrow();
    await until(() => supervisor.state.status === 'crashed', 'crashed');
    expect(states.filter((s) => s.status === 'restarting').map((s) => s.restartDelayMs)).toEqual([20, 40, 50, 50]);
  });

  it('counts a ready timeout as a crash and kills the child', async () => {
    const { supervisor } = await supervise('health-server.mjs', ['--delay-ms', '60000'], {
      readyTimeoutMs: 300,
      maxRestarts: 0,
    });
    let pid: number | null = null;
    supervisor.onStateChange((s) => (pid ??= s.pid));
    await expect(supervisor.start()).rejects.toThrow('child not ready within 300 ms');
    expect(supervisor.state.status).toBe('crashed');
    expect(supervisor.state.lastError).toBe('child not ready within 300 ms');
    expect(pid).not.toBeNull();
    expect(isAlive(pid!)).toBe(false);
  });

  it('stop() while starting cancels the start', async () => {
    const { supervisor, statuses } = await supervise('health-server.mjs', ['--delay-ms', '60000']);
    const starting = supervisor.start().then(
      () => null,
      (err: unknown) => err,
    );
    await until(() => supervisor.state.pid !== null, 'a pid');
    const pid = supervisor.state.pid!;
    await supervisor.stop();
    expect(await starting).toEqual(new Error('child was stopped before it was ready'));
    expect(statuses).toEqual(['starting', 'stopping', 'stopped']);
    expect(isAlive(pid)).toBe(false);
  });

  it('stop() while restarting cancels the pending restart', async () => {
    const counter = path.join(tmp, 'launches');
    const { supervisor } = await supervise('flaky.mjs', ['--counter-file', counter], { backoffBaseMs: 60_000, backoffMaxMs: 60_000 });
    await expect(supervisor.start()).rejects.toThrow();
    expect(supervisor.state.status).toBe('restarting');
    expect(supervisor.state.restartDelayMs).toBe(60_000);
    await supervisor.stop();
    expect(supervisor.state.status).toBe('stopped');
    expect(supervisor.state.restartDelayMs).toBeNull();
    expect(fs.readFileSync(counter, 'utf8')).toBe('1');
  });

  posixOnly('stop() kills the whole group, SIGKILLing a child and grandchild that ignore SIGTERM', async () => {
    const pidFile = path.join(tmp, 'grandchild.pid');
    const { supervisor } = await supervise('group-leader.mjs', ['--pid-file', pidFile, '--ignore-sigterm'], {
      stopTimeoutMs: 300,
    });
    await supervisor.start();
    const leader = supervisor.state.pid!;
    const grandchild = Number(fs.readFileSync(pidFile, 'utf8'));
    expect(isAlive(grandchild)).toBe(true);
    await supervisor.stop();
    expect(isAlive(leader)).toBe(false);
    expect(isAlive(grandchild)).toBe(false);
    expect(supervisor.state.lastExit).toEqual({ code: null, signal: 'SIGKILL' });
    expect(supervisor.state.status).toBe('stopped');
  });

  posixOnly('stop() also kills a grandchild left behind by a leader that obeyed SIGTERM', async () => {
    const pidFile = path.join(tmp, 'grandchild.pid');
    const { supervisor } = await supervise('group-leader.mjs', ['--pid-file', pidFile], { stopTimeoutMs: 300 });
    await supervisor.start();
    const grandchild = Number(fs.readFileSync(pidFile, 'utf8'));
    await supervisor.stop();
    expect(supervisor.state.lastExit).toEqual({ code: 0, signal: null });
    expect(isAlive(grandchild)).toBe(false);
  });

  it('restart() gives a new process and resets the restart count', async () => {
    const counter = path.join(tmp, 'launches');
    const { supervisor } = await supervise('flaky.mjs', ['--counter-file', counter, '--crash-times', '1']);
    await expect(supervisor.start()).rejects.toThrow();
    await until(() => supervisor.state.status === 'running', 'running');
    const before = supervisor.state.pid!;
    expect(supervisor.state.restarts).toBe(1);
    await supervisor.restart();
    expect(supervisor.state.status).toBe('running');
    expect(supervisor.state.restarts).toBe(0);
    expect(supervisor.state.pid).not.toBe(before);
    expect(isAlive(before)).toBe(false);
  });

  it('reports a command that cannot be spawned as a crash', async () => {
    const { supervisor } = await supervise('health-server.mjs', [], {
      command: path.join(tmp, 'no-such-binary'),
      maxRestarts: 0,
    });
    await expect(supervisor.start()).rejects.toThrow(/could not start: .*ENOENT/);
    expect(supervisor.state.status).toBe('crashed');
  });

  it('writes timestamped stdout and stderr lines to the log file and rotates it', async () => {
    const logFile = path.join(tmp, 'logs', 'child.log');
    const { supervisor } = await supervise('health-server.mjs', ['--lines', '200'], {
      logMaxBytes: 4096,
      logKeep: 2,
    });
    await supervisor.start();
    await supervisor.stop();
    const files = fs.readdirSync(path.dirname(logFile)).sort();
    expect(files).toEqual(['child.log', 'child.log.1', 'child.log.2']);
    for (const file of files) {
      expect(fs.statSync(path.join(path.dirname(logFile), file)).size).toBeLessThan(4096 + 200);
    }
    const newest = fs.readFileSync(logFile, 'utf8').split('\n').filter(Boolean);
    for (const line of newest) expect(line).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z \[(out|err|sup)\] /);
    expect(newest.at(-1)).toMatch(/\[sup\] exited \(exited with code 0\)$/);
    // ~18 KB went in and at most three ~4 KB files stay (keep = 2): the first line, our own
    // "starting" note, was rotated away. The ring still has the newest stderr lines.
    const all = files.map((f) => fs.readFileSync(path.join(path.dirname(logFile), f), 'utf8')).join('');
    expect(all).not.toContain('[sup] starting:');
    expect(all).toContain('[sup] ready (pid');
    expect(all).toMatch(/Z \[err\] stderr line 200\n/);
    expect(all).toMatch(/Z \[out\] stdout line 200\n/);
    expect(supervisor.state.stderrTail.at(-1)).toBe('stderr line 200');
    expect(supervisor.state.stderrTail).toHaveLength(50);
  });
});
