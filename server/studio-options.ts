/**
 * What a caller may set when it builds a Studio (`studio.ts`): the headless entry (`main.ts`), the
 * desktop shell and the tests. Timings default to the production ones in each module.
 */
import type { ChatbotOptions } from './chatbot/chatbot.module.js';
import type { Logger } from './logging.js';
import type { DesktopUpdates } from './system/system.routes.js';

export interface StudioOptions {
  /** Defaults to `STUDIO_DIR/logs/server.log`, echoed to the console. */
  logger?: Logger;
  /** Print log lines to the console too (headless server: yes; tests: no). */
  console?: boolean;
  /** Start the engine (tests of the HTTP layer alone turn it off). */
  startEngine?: boolean;
  /** WebSocket heartbeat interval. */
  heartbeatMs?: number;
  /** First wait before the shared-folder probe runs again after a marker could not be written. */
  sharedFolderRecheckMs?: number;
  /** External engine mode: delay between health probes (default 5000). */
  engineProbeMs?: number;
  /** How often the job monitor asks the engine about jobs its socket is silent about (default 3000). */
  jobPollMs?: number;
  /** The chat bot: its library loader (tests inject one that fails) and its timings. */
  chatbot?: ChatbotOptions;
  /**
   * Replace this Studio with a fresh one (`POST /api/admin/system/restart`, after an update):
   * headless re-executes itself, Electron relaunches. Without it, restart answers 409.
   */
  relaunch?: () => void | Promise<void>;
  /** The clock batch windows are read by (tests move it instead of waiting for the hour). */
  batchClock?: () => number;
  /** The installed desktop app's updater (main/desktop-updater.ts); headless Studio has none. */
  desktopUpdates?: DesktopUpdates;
  /** How often the engine API's sockets hear the queue's state (default 5000). */
  comfyKeepaliveMs?: number;
  /** The wait between a notification's attempts (tests make it short). */
  notifySleep?: (ms: number) => Promise<void>;
}
