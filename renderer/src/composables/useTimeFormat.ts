/**
 * Times for display in the browser's zone (`formatWhen`: the date only when not today), converting
 * job records' wall-clock stamps from the server's zone (which the socket's `hello` names).
 */
import { formatStamp } from '../lib/format.js';
import { useConnectionStore } from '../stores/connection.store.js';

export interface TimeFormat {
  /** A server stamp as `14:03` today, `22 Nov, 14:03` another day (with seconds when asked). */
  stamp: (stamp: string | null | undefined, seconds?: boolean) => string;
}

/** Formatters bound to the server's time zone. */
export function useTimeFormat(): TimeFormat {
  const connection = useConnectionStore();
  return {
    stamp: (stamp, seconds = false) => formatStamp(stamp, connection.timeZone, seconds),
  };
}
