import { describe, expect, it, vi } from 'vitest';
import type { EngineStatus } from '../../../server/engine/engine-process.js';
import { buildTrayMenu, trayIconState, trayTooltip, type TrayActions, type TrayState } from '../../../main/tray-menu.js';

function actions(): TrayActions {
  return { openWindow: vi.fn(), openInBrowser: vi.fn(), copyLanAddress: vi.fn(), restartEngine: vi.fn(), stopLlm: vi.fn(), restartBackend: vi.fn(), quit: vi.fn() };
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
    for (const fn of Object.values(a)) expect(fn).toHaveBeenCalledTimes(1);
  });
});
