/**
 * The chat bot's HTTP shapes (`/api/admin/chatbot/`), for the renderer to import type-only.
 */

/** `POST start` results (spec state table). */
export type StartResult = 'started' | 'already running' | 'no token configured';
/** `POST stop` results. */
export type StopResult = 'stopped' | 'not running';

/** The spec's status body (and what system status reads). */
export interface ChatbotStatus {
  running: boolean;
  name: string;
  started_at: string | null;
}

/** Status plus what the spec leaves open: why polling is failing and when it tries again. */
export interface ChatbotDetails extends ChatbotStatus {
  last_error: string | null;
  retry_in_s: number | null;
  /** Polls of the chat platform failed in a row (0 while they succeed): running, but not answering chats. */
  failing_polls: number;
  allowed_chats: number;
}

/** `GET status` when the bot library cannot be loaded. */
export interface ChatbotLibraryMissing extends ChatbotStatus {
  error: string;
}

/** `GET status`. */
export type ChatbotStatusBody = ChatbotDetails | ChatbotLibraryMissing;

/** `POST start` / `POST stop`. */
export interface ChatbotResultBody<R extends StartResult | StopResult> {
  result: R;
}

/** A chat admitted with `/key` (`title`: the chat's title or its user's name when known). */
export interface AdmittedChat {
  id: number;
  title: string | null;
  /** ISO time of admission; null for chats admitted before it was recorded. */
  admitted_at: string | null;
  /** The person whose personal key admitted it; absent for a chat admitted with API_KEY. */
  owner_id?: string;
  /** The id of that personal key: revoking it (or disabling its person) stops the chat until a new `/key`. */
  key_id?: string;
}

/** `GET /api/admin/chatbot/chats`: who may use the bot. */
export interface ChatbotChatsBody {
  /** True when CHATBOT_ALLOWED_CHATS is set: then only `configured` chats are served. */
  fixed_list: boolean;
  /** The ids of CHATBOT_ALLOWED_CHATS (changed only where Studio starts). */
  configured: number[];
  /** Chats admitted with `/key`; a change of API_KEY clears them. */
  admitted: AdmittedChat[];
}
