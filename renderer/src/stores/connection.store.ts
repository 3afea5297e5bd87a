/**
 * The link to Studio: the socket's state, the engine's state, the server version and time zone,
 * shown at all times in the app bar. While Studio is unreachable, `unreachable` says so, so views
 * can mark what they show as possibly out of date.
 */
import { defineStore } from 'pinia';
import { computed, onScopeDispose, ref } from 'vue';
import { useClient } from '../api/context.js';
import type { SocketStatus } from '../api/socket.js';
import type { EngineStateMessage } from '../api/types.js';

/** The badge's words for an engine state; a stand-in says it does not really generate. */
function engineWords(engine: EngineStateMessage | null): string {
  const s = engine?.status;
  if (!s) return 'Engine: unknown';
  if (engine.mode === 'standin' && s === 'running') return 'Stand-in engine (no real generation)';
  const words: Record<EngineStateMessage['status'], string> = {
    running: 'Engine running',
    starting: 'Engine starting…',
    restarting: 'Engine restarting…',
    stopping: 'Engine stopping…',
    stopped: 'Engine stopped',
    crashed: 'Engine crashed',
    unreachable: 'Engine unreachable',
  };
  return engine.mode === 'standin' ? `Stand-in ${words[s].toLowerCase()}` : words[s];
}

export const useConnectionStore = defineStore('connection', () => {
  const { socket, desktop } = useClient();
  const status = ref<SocketStatus>(socket.status);
  const engine = ref<EngineStateMessage | null>(null);
  const version = ref<string | null>(null);
  const maintenance = ref(false);
  /** The IANA zone of job records' wall-clock times (null until the server said). */
  const timeZone = ref<string | null>(null);
  /** A navigation could not load its page (the server went away between clicks). */
  const navigationFailed = ref(false);

  const offs = [
    socket.onStatus((s) => {
      status.value = s;
      if (s.state === 'open') navigationFailed.value = false;
    }),
    socket.on('hello', (hello) => {
      version.value = hello.version;
      engine.value = hello.engine;
      maintenance.value = hello.maintenance;
      timeZone.value = hello.time_zone ?? null;
    }),
    socket.on('engine.state', (state) => (engine.value = state)),
  ];
  onScopeDispose(() => offs.forEach((off) => off()));

  const online = computed(() => status.value.state === 'open');
  /** The socket had been open and is now retrying: what the page shows may be stale. */
  const unreachable = computed(() => status.value.state === 'reconnecting' || navigationFailed.value);
  const standin = computed(() => engine.value?.mode === 'standin');
  /** What the engine badge says, in words. */
  const engineLabel = computed(() => {
    if (!online.value) return status.value.state === 'reconnecting' ? 'Studio unreachable' : 'Connecting…';
    return engineWords(engine.value);
  });
  /** `ok`, `warn` (a stand-in), `busy` or `bad`: the badge's colour. */
  const engineTone = computed(() => {
    if (!online.value) return status.value.state === 'reconnecting' ? 'bad' : 'busy';
    const s = engine.value?.status;
    if (s === 'running') return standin.value ? 'warn' : 'ok';
    if (s === 'crashed' || s === 'unreachable' || s === 'stopped') return 'bad';
    return 'busy';
  });

  return {
    status,
    engine,
    version,
    maintenance,
    timeZone,
    navigationFailed,
    online,
    unreachable,
    standin,
    engineLabel,
    engineTone,
    desktop,
    retryNow: () => socket.retryNow(),
  };
});
