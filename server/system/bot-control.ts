/**
 * What the system capability needs from the chat bot: its state for the status block
 * (`telegram_bot` on the wire) and a restart when its token or name changes in settings. The chat
 * bot capability provides it; the composition root hands it to the system module.
 */
import type { BotStatus } from '../contracts/system.contract.js';

export interface BotControl {
  status(): BotStatus;
  /** Apply a changed token or name to a running bot (stop, start again); a stopped bot stays stopped. */
  restart(): Promise<void>;
  /** The API key changed: forget the chats admitted with `/key` (the configured list stays); returns how many. */
  forgetAdmittedChats(): number;
}

