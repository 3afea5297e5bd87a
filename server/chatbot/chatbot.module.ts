/**
 * The chat bot capability as `studio.ts` builds it: the polling service, its routes, and the
 * `BotControl` the system status and the settings use (token or name changed → restart).
 */
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { EventBus } from '../events/event-bus.js';
import type { Actor } from '../http/actor.js';
import type { Binding } from '../http/authenticator.js';
import type { Logger } from '../logging.js';
import type { StudioModule } from '../module.js';
import type { BotControl } from '../system/bot-control.js';
import type { Secrets } from '../system/secrets.store.js';
import { SettingsStore } from '../db/settings.store.js';
import { loadGrammy, type ChatbotLibraryLoader } from './chatbot-library.js';
import { chatbotRoutes } from './chatbot.routes.js';
import { ChatbotService, type ChatbotServiceDeps } from './chatbot.service.js';
import { ChatbotStore } from './chatbot.store.js';

/** What tests may change: the library loader (one that fails) and the timings. */
export type ChatbotOptions = Partial<Pick<ChatbotServiceDeps, 'backoff' | 'progress' | 'clock'>> & { loadLibrary?: ChatbotLibraryLoader };

export interface ChatbotModuleDeps {
  config: Readonly<Config>;
  db: Db;
  secrets: Secrets;
  events: EventBus;
  logger: Logger;
  /** Where the bot reaches Studio (read when it starts: the port is known only once listening). */
  studioUrl: () => string;
  /** The headers of the bot's calls to Studio: the in-process credential, not the public key check, naming a bound chat's person. */
  studioAuth: (as: Binding | null) => Record<string, string>;
  /** Who a personal key belongs to (the people of this Studio), for `/key`. */
  personalKey: (candidate: string) => Actor | null;
  options?: ChatbotOptions;
}

export interface ChatbotModule extends StudioModule {
  service: ChatbotService;
  /** The status block of system status, and the restart the settings ask for. */
  control: BotControl;
}

/** Build the chat bot; it starts at Studio's start when it has a token, or when asked. */
export function createChatbotModule(deps: ChatbotModuleDeps): ChatbotModule {
  const { config, secrets, options } = deps;
  const service = new ChatbotService({
    token: () => secrets.get('CHATBOT_BOT_TOKEN'),
    name: () => secrets.get('CHATBOT_BOT_NAME'),
    loadLibrary: options?.loadLibrary ?? loadGrammy,
    apiRoot: config.urls.chatbotApi,
    studioUrl: deps.studioUrl,
    studioCertFile: config.tls?.cert ?? null,
    studioAuth: deps.studioAuth,
    apiKey: () => secrets.apiKey(),
    personalKey: deps.personalKey,
    store: new ChatbotStore(new SettingsStore(deps.db), config.chatbot.allowedChats),
    events: deps.events,
    logger: deps.logger,
    pollTimeoutS: config.chatbot.pollTimeoutS,
    backoff: options?.backoff,
    progress: options?.progress,
    clock: options?.clock,
  });
  // The system status block is `{running: bool (token configured), name}` in the spec's words:
  // whether polling is alive is `GET /api/admin/chatbot/status`'s `running`.
  const control: BotControl = {
    status: () => ({ running: Boolean(secrets.get('CHATBOT_BOT_TOKEN')), name: service.status().name }),
    restart: () => service.restart(),
    forgetAdmittedChats: () => service.forgetAdmittedChats(),
  };
  return {
    name: 'chatbot',
    routers: [chatbotRoutes(service)],
    service,
    control,
    // After Studio listens: the bot calls Studio's own HTTP API.
    start: () => service.autoStart(),
    stop: async () => void (await service.stop()),
  };
}
