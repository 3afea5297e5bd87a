/**
 * The link to Studio: the socket's state, the engine's state and the server version, shown at
 * all times in the app bar.
 */
import { defineStore } from 'pinia';
import { computed, onScopeDispose, ref } from 'vue';
import { useClient } from '../api/context.js';
import type { SocketStatus } from '../api/socket.js';
import type { EngineStateMessage } from '../api/types.js';

export const useConnectionStore = defineStore('connection', () => {
  const { socket, desktop } = useClient();
  const status = ref<SocketStatus>(socket.status);
  const engine = ref<EngineStateMessage | null>(null);
  const version = ref<string | null>(null);
  const maintenance = ref(false);

  const offs = [
    socket.onStatus((s) => (status.value = s)),
    socket.on('hello', (hello) => {
      version.value = hello.version;
      engine.value = hello.engine;
      maintenance.value = hello.maintenance;
    }),
    socket.on('engine.state', (state) => (engine.value = state)),
  ];
  onScopeDispose(() => offs.forEach((off) => off()));

  const online = computed(() => status.value.state === 'open');
  /** What the engine badge says, in words. */
  const engineLabel = computed(() => {
    if (!online.value) return status.value.state === 'reconnecting' ? 'Reconnecting…' : 'Connecting…';
    const s = engine.value?.status;
    if (!s) return 'Engine: unknown';
    const words: Record<EngineStateMessage['status'], string> = {
      running: 'Engine running',
      starting: 'Engine starting…',
      restarting: 'Engine restarting…',
      stopping: 'Engine stopping…',
      stopped: 'Engine stopped',
      crashed: 'Engine crashed',
      unreachable: 'Engine unreachable',
    };
    return words[s];
  });
  /** `ok`, `busy` or `bad`: the badge's colour. */
  const engineTone = computed(() => {
    if (!online.value) return 'busy';
    const s = engine.value?.status;
    if (s === 'running') return 'ok';
    if (s === 'crashed' || s === 'unreachable' || s === 'stopped') return 'bad';
    return 'busy';
  });

  return { status, engine, version, maintenance, online, engineLabel, engineTone, desktop, retryNow: () => socket.retryNow() };
});
