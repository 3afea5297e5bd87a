import type { BotStatus } from '../contracts/system.contract.js';

export interface BotControl {
  status(): BotStatus;
  /** Apply a changed token or name (stop, then start again when a token is set). */
  restart(): Promise<void>;
}

/** A bot that is never running: Studio without a chat bot capability. */
export function absentBot(name: () => string | null): BotControl {
  return {
    status: () => ({ running: false, name: name() }),
    restart: async () => {},
  };
}
