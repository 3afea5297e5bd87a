/**
 * The tray menu as data, built from the current state: the tray rebuilds it whenever the engine
 * or the LLM server changes state. Pure, so every state is tested without Electron.
 */
import type { MenuItemConstructorOptions } from 'electron';
import type { EngineStatus } from '../server/engine/engine-process.js';
import type { DesktopUpdateStatus } from '../server/contracts/system.contract.js';
import type { LlmTrayState } from './studio-handle.js';

export interface TrayState {
  engine: { status: EngineStatus; mode: string; lastError: string | null };
  llm: LlmTrayState;
  /** Null while LAN access is off: the item is then not shown. */
  lanUrl: string | null;
  backendRunning: boolean;
  /** The installed app's update, when its updater is on. */
  update?: { status: DesktopUpdateStatus['status']; version: string | null; percent: number | null; error: string | null } | null;
}

export interface TrayActions {
  openWindow(): void;
  openInBrowser(): void;
  copyLanAddress(): void;
  restartEngine(): void;
  stopLlm(): void;
  restartBackend(): void;
  checkForUpdate(): void;
  downloadUpdate(): void;
  installUpdate(): void;
  quit(): void;
}

const ENGINE_LABELS: Record<EngineStatus, string> = {
  running: 'running',
  starting: 'starting…',
  restarting: 'restarting…',
  stopping: 'stopping…',
  stopped: 'stopped',
  crashed: 'crashed',
  unreachable: 'unreachable',
};

/** The icon variant for an engine status. */
export function trayIconState(status: EngineStatus): 'running' | 'starting' | 'crashed' | 'stopped' {
  if (status === 'running') return 'running';
  if (status === 'starting' || status === 'restarting' || status === 'stopping') return 'starting';
  if (status === 'crashed' || status === 'unreachable') return 'crashed';
  return 'stopped';
}

/** The tooltip: product name and engine state. */
export function trayTooltip(state: TrayState): string {
  const update = state.update?.status === 'available' || state.update?.status === 'downloaded' ? ` — update ${state.update.version ?? ''} available` : '';
  return `Studio — engine ${ENGINE_LABELS[state.engine.status]}${update}`;
}

/** The update item: none while updates are off. */
function updateItems(update: TrayState['update'], actions: TrayActions): MenuItemConstructorOptions[] {
  if (!update || update.status === 'off') return [];
  const version = update.version ?? '';
  switch (update.status) {
    case 'available':
      return [{ label: `Update available: ${version} — Download`, click: () => actions.downloadUpdate() }];
    case 'downloading':
      return [{ label: `Downloading update ${version}… ${Math.floor(update.percent ?? 0)}%`, enabled: false }];
    case 'downloaded':
      return [{ label: `Restart to install ${version}`, click: () => actions.installUpdate() }];
    case 'checking':
      return [{ label: 'Checking for updates…', enabled: false }];
    case 'error':
      return [{ label: 'Update failed — check again', click: () => actions.checkForUpdate(), toolTip: update.error ?? undefined }];
    default:
      return [{ label: 'Check for updates', click: () => actions.checkForUpdate() }];
  }
}

/** Menu template for `Menu.buildFromTemplate`. */
export function buildTrayMenu(state: TrayState, actions: TrayActions): MenuItemConstructorOptions[] {
  const items: MenuItemConstructorOptions[] = [
    { label: 'Open Studio', click: () => actions.openWindow(), enabled: state.backendRunning },
    { label: 'Open in browser', click: () => actions.openInBrowser(), enabled: state.backendRunning },
  ];
  if (state.lanUrl) items.push({ label: `Copy LAN address (${state.lanUrl})`, click: () => actions.copyLanAddress() });
  items.push({ type: 'separator' });
  const engineLabel = `Engine (${state.engine.mode}): ${ENGINE_LABELS[state.engine.status]}`;
  items.push({ label: engineLabel, enabled: false, toolTip: state.engine.lastError ?? undefined });
  items.push({
    label: 'Restart engine',
    click: () => actions.restartEngine(),
    enabled: state.backendRunning && state.engine.mode !== 'external' && state.engine.status !== 'stopping',
  });
  const llmLabel = state.llm.status === 'running' ? `LLM server: running${state.llm.model ? ` (${state.llm.model})` : ''}` : `LLM server: ${state.llm.status === 'stopped' ? 'stopped' : 'not available'}`;
  items.push({ label: llmLabel, enabled: false });
  items.push({ label: 'Stop LLM server', click: () => actions.stopLlm(), enabled: state.llm.status === 'running' });
  items.push({ type: 'separator' });
  items.push(...updateItems(state.update, actions));
  items.push({ label: 'Restart backend', click: () => actions.restartBackend(), enabled: state.backendRunning });
  items.push({ label: 'Quit Studio', click: () => actions.quit() });
  return items;
}
