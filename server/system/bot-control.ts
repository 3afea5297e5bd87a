/**
 * What the system capability needs from the chat bot: its state for the status block
 * (`telegram_bot` on the wire) and a restart when its token or name changes in settings. The
 * composition root wires the real bot; until one exists a stand-in reports it stopped.
 */

export interface BotStatus {
  running: boolean;
  name: string | null;
}

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
