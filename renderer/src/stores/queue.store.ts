/**
 * Whether Studio's queue is paused, for every place a waiting job is shown (the queue drawer and
 * page, the Run panel): read once, then kept current by the `queue.paused` / `queue.resumed`
 * events. Pause and resume go through here so all of them change together.
 */
import { defineStore } from 'pinia';
import { ref } from 'vue';
import { useClient } from '../api/context.js';

export const useQueueStore = defineStore('queue', () => {
  const { api, socket } = useClient();
  const paused = ref(false);
  let asked = false;

  /** Ask the server (members may not read the queue's state: then nothing is known, nothing shown). */
  async function refresh(): Promise<void> {
    asked = true;
    paused.value = (await api.queueState().catch(() => null))?.paused ?? false;
  }

  /** Read the state the first time someone needs it. */
  function ensure(): void {
    if (!asked) void refresh();
  }

  async function setPaused(on: boolean): Promise<boolean> {
    paused.value = (await api.pauseQueue(on)).paused;
    return paused.value;
  }

  socket.on('event', (event) => {
    if (event.type === 'queue.paused') paused.value = true;
    if (event.type === 'queue.resumed') paused.value = false;
  });

  return { paused, refresh, ensure, setPaused };
});
