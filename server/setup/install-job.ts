/**
 * The one engine install (or update, or switch to a found install) that may run at a time: its
 * steps with their times, the last lines of output, and the way everything it does reaches the
 * user — an event per step and at the end, a WebSocket message per step and per output line.
 */
import crypto from 'node:crypto';
import type { InstallState, InstallStep, InstallStepName } from '../contracts/setup.contract.js';
import type { EventBus } from '../events/event-bus.js';
import type { WsHub } from '../http/ws-hub.js';
import { InstallError, type InstallHooks } from './engine-installer.js';

const KEPT_LINES = 200;

const STEP_LABELS: Record<InstallStepName, string> = {
  space: 'Free disk space',
  clone: 'Download the engine',
  environment: 'Python environment',
  torch: 'torch for this GPU',
  requirements: "The engine's requirements",
  nodes: 'Node packages carried over',
  check: 'torch works',
  prove: 'First start and smoke prompt',
  switch: 'Switch to it',
};

export interface JobDeps {
  events: EventBus;
  hub: Pick<WsHub, 'broadcast'>;
  env: NodeJS.ProcessEnv;
}

/** A running job: its state, and the hooks its steps report through. */
export class InstallJob {
  readonly state: InstallState;
  readonly controller = new AbortController();
  private readonly startedMs = new Map<InstallStepName, number>();

  constructor(
    private readonly deps: JobDeps,
    kind: InstallState['kind'],
    version: string | null,
    steps: readonly InstallStepName[],
  ) {
    this.state = {
      id: crypto.randomUUID(),
      kind,
      version,
      status: 'running',
      steps: steps.map((name): InstallStep => ({ name, label: STEP_LABELS[name], status: 'pending', started_at: null, finished_at: null })),
      log: [],
      error: null,
      started_at: new Date().toISOString(),
      finished_at: null,
      timings: {},
    };
    deps.events.emit('engine.install.started', 'info', `Engine ${kind} started${version ? ` (${version})` : ''}`, { id: this.state.id, kind, version });
    this.send(null);
  }

  /** The hooks handed to the installer and the prover. */
  get hooks(): InstallHooks {
    return { env: this.deps.env, signal: this.controller.signal, step: (name) => this.step(name), line: (text) => this.line(text) };
  }

  /** Mark `name` running (and the step before it done). */
  step(name: InstallStepName): void {
    this.closeRunning('done');
    const step = this.state.steps.find((s) => s.name === name);
    if (!step) return;
    step.status = 'running';
    step.started_at = new Date().toISOString();
    this.startedMs.set(name, Date.now());
    this.deps.events.emit('engine.install.step', 'info', `Engine ${this.state.kind}: ${step.label}`, { id: this.state.id, step: name });
    this.send(name);
  }

  line(text: string): void {
    this.state.log.push(text);
    if (this.state.log.length > KEPT_LINES) this.state.log.splice(0, this.state.log.length - KEPT_LINES);
    this.deps.hub.broadcast('setup.install', { id: this.state.id, status: this.state.status, step: this.stepThatIs('running'), line: text });
  }

  /** The job ended well. */
  finish(message: string, data: Record<string, unknown>): void {
    this.closeRunning('done');
    for (const step of this.state.steps) if (step.status === 'pending') step.status = 'skipped';
    this.end('finished');
    this.deps.events.emit('engine.switched', 'success', message, { id: this.state.id, ...data, timings_s: this.state.timings });
  }

  /** The job failed or was cancelled; `err` says why in plain words. */
  fail(err: unknown): void {
    const cancelled = err instanceof InstallError && err.cancelled;
    const message = err instanceof Error ? err.message : String(err);
    this.closeRunning('failed');
    this.state.error = cancelled ? 'Cancelled' : message;
    this.end(cancelled ? 'cancelled' : 'failed');
    if (cancelled) this.deps.events.emit('engine.install.cancelled', 'warning', `Engine ${this.state.kind} cancelled; nothing was changed`, { id: this.state.id });
    else this.deps.events.emit('engine.install.failed', 'error', `Engine ${this.state.kind} failed: ${message}`, { id: this.state.id, step: this.stepThatIs('failed'), error: message });
  }

  private end(status: InstallState['status']): void {
    this.state.status = status;
    this.state.finished_at = new Date().toISOString();
    this.send(null);
  }

  private closeRunning(as: 'done' | 'failed'): void {
    for (const step of this.state.steps) {
      if (step.status !== 'running') continue;
      step.status = as;
      step.finished_at = new Date().toISOString();
      const started = this.startedMs.get(step.name);
      if (started !== undefined) this.state.timings[step.name] = Math.round((Date.now() - started) / 100) / 10;
    }
  }

  private stepThatIs(status: InstallStep['status']): InstallStepName | null {
    return this.state.steps.find((s) => s.status === status)?.name ?? null;
  }

  private send(step: InstallStepName | null): void {
    this.deps.hub.broadcast('setup.install', { id: this.state.id, status: this.state.status, step });
  }
}
