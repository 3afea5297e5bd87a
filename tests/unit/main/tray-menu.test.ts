import { describe, expect, it, vi } from 'vitest';
import type { EngineStatus } from '../../../server/engine/engine-process.js';
import { buildTrayMenu, trayIconState, trayTooltip, type TrayActions, type TrayState } from '../../../main/tray-menu.js';

function actions(): TrayActions {
  return {
    openWindow: vi.fn(),
    openInBrowser: vi.fn(),
    copyLanAddress: vi.fn(),
    restartEngine: vi.fn(),
    stopLlm: vi.fn(),
    restartBackend: vi.fn(),
    checkForUpdate: vi.fn(),
    downloadUpdate: vi.fn(),
    installUpdate: vi.fn(),
    quit: vi.fn(),
  };
}

function state(patch: Partial<TrayState> = {}, engine: Partial<TrayState['engine']> = {}): TrayState {
  return {
    engine: { status: 'running', mode: 'standin', lastError: null, ...engine },
    llm: { status: 'unavailable', model: null },
    lanUrl: null,
    backendRunning: true,
    ...patch,
  };
}

const labels = (s: TrayState) => buildTrayMenu(s, actions()).map((i) => i.label ?? `--${i.type}`);

describe('the tray menu', () => {
  it('has the spec items in order', () => {
    expect(labels(state())).toEqual([
      'Open Studio',
      'Open in browser',
      '--separator',
      'Engine (standin): running',
      'Restart engine',
      'LLM server: not available',
      'Stop LLM server',
      '--separator',
      'Restart backend',
      'Quit Studio',
    ]);
  });

  it("shows the installed app's update: nothing while off, then download, progress and install", () => {
    const update = (patch: Partial<NonNullable<TrayState['update']>>) => state({ update: { status: 'idle', version: null, percent: null, error: null, ...patch } });
    expect(labels(state({ update: null })).some((l) => /update/i.test(l))).toBe(false);
    expect(labels(update({ status: 'off' })).some((l) => /update/i.test(l))).toBe(false);
    expect(labels(update({ status: 'idle' }))).toContain('Check for updates');
    const a = actions();
    const available = buildTrayMenu(update({ status: 'available', version: '0.2.0' }), a);
    const download = available.find((i) => i.label === 'Update available: 0.2.0 — Download');
    download?.click?.({} as never, undefined, {} as never);
    expect(a.downloadUpdate).toHaveBeenCalledOnce();
    expect(trayTooltip(update({ status: 'available', version: '0.2.0' }))).toBe('Studio — engine running — update 0.2.0 available');
    const downloading = buildTrayMenu(update({ status: 'downloading', version: '0.2.0', percent: 42.7 }), a).find((i) => i.label?.startsWith('Downloading'));
    expect(downloading).toMatchObject({ label: 'Downloading update 0.2.0… 42%', enabled: false });
    const install = buildTrayMenu(update({ status: 'downloaded', version: '0.2.0' }), a).find((i) => i.label === 'Restart to install 0.2.0');
    install?.click?.({} as never, undefined, {} as never);
    expect(a.installUpdate).toHaveBeenCalledOnce();
    const failed = buildTrayMenu(update({ status: 'error', error: 'sha512 checksum mismatch' }), a).find((i) => i.label === 'Update failed — check again');
    expect(failed?.toolTip).toBe('sha512 checksum mismatch');
  });

  it('shows Copy LAN address only when LAN access is on', () => {
    expect(labels(state({ lanUrl: 'http://192.168.1.7:8000' }))).toContain('Copy LAN address (http://192.168.1.7:8000)');
    expect(labels(state()).some((l) => l.startsWith('Copy LAN'))).toBe(false);
  });

  it('names every engine state and maps it to an icon', () => {
    const cases: Array<[EngineStatus, string, string]> = [
      ['running', 'running', 'running'],
      ['starting', 'starting…', 'starting'],
      ['restarting', 'restarting…', 'starting'],
      ['crashed', 'crashed', 'crashed'],
      ['unreachable', 'unreachable', 'crashed'],
      ['stopped', 'stopped', 'stopped'],
      ['stopping', 'stopping…', 'starting'],
    ];
    for (const [status, label, icon] of cases) {
      expect(labels(state({}, { status }))).toContain(`Engine (standin): ${label}`);
      expect(trayIconState(status)).toBe(icon);
      expect(trayTooltip(state({}, { status }))).toBe(`Studio — engine ${label}`);
    }
  });

  it('disables Restart engine for an external engine and Stop LLM unless the LLM runs', () => {
    const external = buildTrayMenu(state({}, { mode: 'external' }), actions());
    expect(external.find((i) => i.label === 'Restart engine')!.enabled).toBe(false);
    expect(external.find((i) => i.label === 'Stop LLM server')!.enabled).toBe(false);
    const llm = buildTrayMenu(state({ llm: { status: 'running', model: 'qwen.gguf' } }), actions());
    expect(llm.find((i) => i.label === 'LLM server: running (qwen.gguf)')).toBeDefined();
    expect(llm.find((i) => i.label === 'Stop LLM server')!.enabled).toBe(true);
  });

  it('disables server actions while the backend restarts, but Quit always works', () => {
    const menu = buildTrayMenu(state({ backendRunning: false }), actions());
    expect(menu.find((i) => i.label === 'Open Studio')!.enabled).toBe(false);
    expect(menu.find((i) => i.label === 'Restart backend')!.enabled).toBe(false);
    expect(menu.find((i) => i.label === 'Quit Studio')!.enabled).not.toBe(false);
  });

  it('wires clicks to the actions', () => {
    const a = actions();
    const menu = buildTrayMenu(state({ lanUrl: 'http://10.0.0.2:8000' }), a);
    for (const item of menu) (item.click as (() => void) | undefined)?.();
    // The update items show one at a time, by the updater's state (the update test clicks them).
    const { checkForUpdate, downloadUpdate, installUpdate, ...always } = a;
    for (const fn of Object.values(always)) expect(fn).toHaveBeenCalledTimes(1);
    for (const fn of [checkForUpdate, downloadUpdate, installUpdate]) expect(fn).not.toHaveBeenCalled();
  });
});
