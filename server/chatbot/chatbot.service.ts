/**
 * The chat bot's lifecycle (spec "Chat bot" state table): start, stop, restart, status. It owns
 * the poll loop, the conversation and the reports in flight; every start builds them afresh
 * with the token and name in force, so a changed token takes effect on `restart()`. Transitions
 * are serialised: a start racing a stop never leaves two pollers on one token (the platform
 * would answer 409 to both).
 */
import type { EventBus } from '../events/event-bus.js';
import { DomainError } from '../domain-error.js';
import type { Logger } from '../logging.js';
import { systemClock, type Clock } from '../process/clock.js';
import { romeIso } from '../time.js';
import { ChatDoor } from './chat-door.js';
import { ChatPlatformClient } from './chat-platform.client.js';
import type { ChatbotLibrary, ChatbotLibraryLoader } from './chatbot-library.js';
import type { ChatbotStore } from './chatbot.store.js';
import { Conversation } from './conversation.js';
import { loopbackTrust, type LoopbackTrust } from '../process/local-http.js';
import { PollLoop, type BackoffOptions } from './poll-loop.js';
import { RunReporter } from './run-reporter.js';
import type { ChatbotChatsBody, ChatbotDetails, ChatbotStatus, StartResult, StopResult } from '../contracts/chatbot.contract.js';
import { StudioApiClient } from './studio-api.client.js';
import { mayTouch, OWNER_ACTOR, seesEveryone, type Actor } from '../http/actor.js';
import type { Binding } from '../http/authenticator.js';

export interface ChatbotServiceDeps {
  /** The token in force (environment or stored settings), read at each start. */
  token: () => string | null;
  name: () => string | null;
  loadLibrary: ChatbotLibraryLoader;
  apiRoot: string;
  /** Studio's own local address and key, for the bot's API calls. */
  studioUrl: () => string;
  /** Studio's TLS certificate file when it serves HTTPS (the bot trusts it on loopback). */
  studioCertFile: string | null;
  /** The headers of the bot's API calls (Studio's in-process credential, not the public key), naming the person a chat is bound to. */
  studioAuth: (as: Binding | null) => Record<string, string>;
  /** The API key in force: a chat that sends it with `/key` is admitted. */
  apiKey: () => string;
  /** Who a personal key belongs to: a chat that sends it with `/key` is admitted and bound to them. */
  personalKey: (candidate: string) => Actor | null;
  store: ChatbotStore;
  events: EventBus;
  logger: Logger;
  pollTimeoutS: number;
  backoff?: BackoffOptions;
  /** Status poll interval and the least time between two edits of the progress message. */
  progress?: { pollMs: number; minEditMs: number };
  /** Backoff, 429 waits and the edit throttle (tests record the delays asked for). */
  clock?: Clock;
}

interface Running {
  loop: PollLoop;
  abort: AbortController;
  reporter: RunReporter;
  startedAt: Date;
}

/** Starts, stops and reports the chat bot. */
export class ChatbotService {
  private running: Running | null = null;
  private transitions: Promise<unknown> = Promise.resolve();
  private library: Promise<ChatbotLibrary> | null = null;
  /** Why the bot stopped by itself (a rejected token); cleared by the next start. */
  private stoppedBecause: string | null = null;
  private readonly wrongKeys = new Map<number, number>();
  private get clock(): Clock {
    return this.deps.clock ?? systemClock;
  }
  private readonly trust: LoopbackTrust | undefined;

  constructor(private readonly deps: ChatbotServiceDeps) {
    this.trust = loopbackTrust(deps.studioCertFile);
  }

  /** `running` means the polling loop is alive (also while it backs off after errors). */
  status(): ChatbotStatus {
    const running = this.running !== null && !this.running.loop.ended;
    return { running, name: this.deps.name() ?? '', started_at: running ? romeIso(this.running!.startedAt) : null };
  }

  /** Status with the polling error, the time to the next try and the number of allowed chats. */
  details(): ChatbotDetails {
    const state = this.running?.loop.state;
    const retryAt = state?.phase === 'backing_off' ? state.retryAt : null;
    return {
      ...this.status(),
      last_error: state?.lastError ?? this.stoppedBecause,
      retry_in_s: retryAt === null ? null : Math.max(0, Math.ceil((retryAt - this.clock.now()) / 1000)),
      failing_polls: this.running && !this.running.loop.ended ? (state?.failures ?? 0) : 0,
      allowed_chats: this.deps.store.allowedCount(),
    };
  }

  /** Who may use the bot, as `actor` may see it: a member sees only the chats their key admitted. */
  chats(actor: Actor = OWNER_ACTOR): ChatbotChatsBody {
    const { store } = this.deps;
    const everyone = seesEveryone(actor);
    return { fixed_list: store.fixedList, configured: everyone ? [...store.configuredChats()] : [], admitted: store.admitted().filter((chat) => mayTouch(actor, chat.owner_id)) };
  }

  /** Take an admitted chat off the list: 404 when it is not there, 409 for a configured one. */
  removeChat(chatId: number, actor: Actor = OWNER_ACTOR): void {
    const { store } = this.deps;
    // Another person's chat is, to a member, not on the list at all.
    const mine = store.admitted().some((chat) => chat.id === chatId && mayTouch(actor, chat.owner_id));
    if (mine && store.remove(chatId)) {
      this.deps.events.emit('chatbot.chat.removed', 'info', `Chat ${chatId} may no longer use the chat bot (removed from the admitted chats)`, { chat_id: chatId });
      return;
    }
    if (seesEveryone(actor) && store.configuredChats().includes(chatId)) {
      throw new DomainError('conflict', `Chat ${chatId} is listed in CHATBOT_ALLOWED_CHATS; change that variable where Studio starts`);
    }
    throw new DomainError('not_found', `Chat ${chatId} is not among the admitted chats`);
  }

  /** The API key changed: chats admitted with the old one must send the new one (chats bound by a personal key stay). */
  forgetAdmittedChats(): number {
    const count = this.deps.store.clearAdmitted();
    if (count > 0) {
      this.deps.events.emit('chatbot.chats.cleared', 'warning', `The API key changed: ${count} chat(s) admitted with /key must send the new key to use the chat bot`, { count });
    }
    return count;
  }

  /** The message status shows when the bot library cannot be loaded, else null. */
  async libraryError(): Promise<string | null> {
    try {
      await this.loadLibrary();
      return null;
    } catch (err) {
      return `The chat bot library (grammy) is not available: ${(err as Error).message}`;
    }
  }

  /** `POST start`: 500 when the library is missing. */
  start(): Promise<StartResult> {
    return this.serialise(() => this.doStart());
  }

  /** `POST stop`: ends polling (the poll in flight is aborted) and the reports in flight. */
  stop(): Promise<StopResult> {
    return this.serialise(async () => ((await this.teardown()) ? 'stopped' : 'not running'));
  }

  /**
   * Apply a changed token or name to a running bot: stop, then start again when a token is set.
   * A stopped bot stays stopped (the spec starts it only on `start` and at boot).
   */
  restart(): Promise<void> {
    return this.serialise(async () => {
      const wasRunning = await this.teardown();
      if (wasRunning && this.deps.token()) await this.doStart();
    });
  }

  /** On boot: start when a token is set; a missing library is logged, not thrown. */
  async autoStart(): Promise<void> {
    if (!this.deps.token()) return;
    try {
      await this.start();
    } catch (err) {
      this.deps.logger.error('chat bot did not start', err);
    }
  }

  private async doStart(): Promise<StartResult> {
    const error = await this.libraryError();
    if (error) throw new DomainError('failed', error);
    if (this.running && !this.running.loop.ended) return 'already running';
    await this.teardown();
    const token = this.deps.token();
    if (!token) return 'no token configured';
    const lib = await this.loadLibrary();
    // A token is `<bot id>:<secret>`; the id keys what is kept per bot.
    const botId = token.split(':')[0] ?? token;
    const abort = new AbortController();
    const platform = new ChatPlatformClient({ lib, token, apiRoot: this.deps.apiRoot, signal: abort.signal, clock: this.clock });
    // Each call as the chat's person: bound by a personal key, or the owner (API_KEY, CHATBOT_ALLOWED_CHATS).
    const credential = (chatId: number) => this.deps.studioAuth(this.deps.store.binding(chatId));
    const studio = new StudioApiClient({ trust: this.trust, baseUrl: this.deps.studioUrl, credential, signal: abort.signal });
    const progress = this.deps.progress ?? { pollMs: 1000, minEditMs: 3000 };
    const reporter = new RunReporter({ platform, studio, signal: abort.signal, logger: this.deps.logger, ...progress, clock: this.clock });
    const door = new ChatDoor({ platform, store: this.deps.store, apiKey: this.deps.apiKey, personalKey: this.deps.personalKey, events: this.deps.events, wrongKeys: this.wrongKeys });
    const conversation = new Conversation({ platform, studio, door, reporter, logger: this.deps.logger });
    const loop = new PollLoop({
      client: platform,
      handle: (update) => conversation.handle(update),
      offset: { get: () => this.deps.store.offset(botId), set: (value) => this.deps.store.setOffset(botId, value) },
      pollTimeoutS: this.deps.pollTimeoutS,
      backoff: this.deps.backoff ?? { initialMs: 1000, maxMs: 60_000 },
      onFatal: (message) => this.onFatal(message),
      logger: this.deps.logger,
      clock: this.clock,
    });
    this.running = { loop, abort, reporter, startedAt: new Date() };
    this.stoppedBecause = null;
    loop.start();
    this.deps.events.emit('chatbot.state', 'info', `Chat bot started${this.deps.name() ? `: ${this.deps.name()}` : ''}`, { running: true });
    return 'started';
  }

  /** The platform rejected the token: the loop has ended; tidy up and say so. */
  private onFatal(message: string): void {
    this.stoppedBecause = message;
    this.deps.events.emit('chatbot.state', 'error', `Chat bot stopped: ${message}`, { running: false });
    void this.serialise(() => this.teardown(false));
  }

  /** Stop what runs; true when something was running. */
  private async teardown(announce = true): Promise<boolean> {
    const current = this.running;
    if (!current) return false;
    this.running = null;
    const wasRunning = !current.loop.ended;
    current.abort.abort();
    await current.loop.stop();
    await current.reporter.drain();
    if (announce && wasRunning) this.deps.events.emit('chatbot.state', 'info', 'Chat bot stopped', { running: false });
    return wasRunning;
  }

  private loadLibrary(): Promise<ChatbotLibrary> {
    this.library ??= this.deps.loadLibrary();
    return this.library;
  }

  private serialise<T>(work: () => Promise<T>): Promise<T> {
    const next = this.transitions.then(work, work);
    this.transitions = next.catch(() => undefined);
    return next;
  }
}
