/**
 * Keep what a view shows current: load on mount, again after the socket reconnects (messages
 * were missed while it was down), and when the tab becomes visible again. Cleaned up on unmount.
 */
import { onBeforeUnmount, onMounted } from 'vue';
import { useClient } from '../api/context.js';

/** Run `load` now and after every reconnect or return to the tab. */
export function useLiveRefresh(load: () => Promise<unknown> | void): void {
  const { socket } = useClient();
  const run = () => {
    void Promise.resolve()
      .then(load)
      .catch(() => undefined);
  };
  const onVisible = () => {
    if (document.visibilityState === 'visible') run();
  };
  let off: (() => void) | null = null;
  onMounted(() => {
    run();
    off = socket.onOpen((reconnected) => {
      if (reconnected) run();
    });
    document.addEventListener('visibilitychange', onVisible);
  });
  onBeforeUnmount(() => {
    off?.();
    document.removeEventListener('visibilitychange', onVisible);
  });
}
