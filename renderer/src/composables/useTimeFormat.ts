/**
 * Times for display in the browser's zone, converting job records' wall-clock stamps from the
 * server's zone (which the socket's `hello` names).
 */
import { parseServerTime } from '../../../server/contracts/wire-time.js';
import { formatStamp } from '../lib/format.js';
import { useConnectionStore } from '../stores/connection.store.js';

export interface TimeFormat {
  /** A job stamp as `22 Nov, 14:03` (with seconds when asked). */
  stamp: (stamp: string | null | undefined, seconds?: boolean) => string;
}

/** Formatters bound to the server's time zone. */
export function useTimeFormat(): TimeFormat {
  const connection = useConnectionStore();
  return {
    stamp: (stamp, seconds = false) => {
      if (!seconds) return formatStamp(stamp, connection.timeZone);
      const date = parseServerTime(stamp, connection.timeZone);
      return date ? date.toLocaleString(undefined, { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', second: '2-digit' }) : '—';
    },
  };
}
