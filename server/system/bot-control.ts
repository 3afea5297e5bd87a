import type { BotStatus } from '../contracts/system.contract.js';

export interface BotControl {
  status(): BotStatus;
  /** Apply a changed token or name to a running bot (stop, start again); a stopped bot stays stopped. */
  restart(): Promise<void>;
  /** The API key changed: forget the chats admitted with `/key` (the configured list stays); returns how many. */
  forgetAdmittedChats(): number;
}

/** A bot that is never running: Studio without a chat bot capability. */
export function absentBot(name: () => string | null): BotControl {
  return {
    status: () => ({ running: false, name: name() }),
    restart: async () => {},
    forgetAdmittedChats: () => 0,
  };
}
