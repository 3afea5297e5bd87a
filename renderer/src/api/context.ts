/**
 * How the app hands its API client and socket to stores and composables: provided once by
 * `main.ts` (or a test), injected where used. No module-level instances.
 */
import { inject, type App, type InjectionKey } from 'vue';
import type { StudioSocket } from './socket.js';
import type { StudioApi } from './studio-api.js';

/** The desktop bridge, when the page runs in Studio's own window (absent in a LAN browser). */
export type { StudioDesktopBridge } from '../../../preload/bridge.js';
import type { StudioDesktopBridge } from '../../../preload/bridge.js';

export interface StudioClient {
  api: StudioApi;
  socket: StudioSocket;
  desktop: StudioDesktopBridge | null;
}

export const CLIENT_KEY: InjectionKey<StudioClient> = Symbol('studio-client');

/** Provide the client to an app (main.ts and tests). */
export function provideClient(app: App, client: StudioClient): void {
  app.provide(CLIENT_KEY, client);
}

/** The client, from inside a component setup or a store. */
export function useClient(): StudioClient {
  const client = inject(CLIENT_KEY, null);
  if (!client) throw new Error('Studio client not provided');
  return client;
}

/** `window.studioDesktop` when the preload script exposed it. */
export function detectDesktop(win: Window & { studioDesktop?: unknown } = window): StudioDesktopBridge | null {
  const bridge = win.studioDesktop as Partial<StudioDesktopBridge> | undefined;
  return bridge && bridge.isDesktop === true && typeof bridge.revealPath === 'function' ? (bridge as StudioDesktopBridge) : null;
}
