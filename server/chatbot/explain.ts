/** Failures told to a chat user in plain words, without stack traces or internal names. */
import { ChatPlatformError } from './chat-platform.client.js';
import { StudioApiError } from './studio-api.client.js';

/** One sentence saying what went wrong. */
export function explain(err: unknown): string {
  if (err instanceof StudioApiError) {
    if (err.status === 404) return `Studio does not know it (${err.detail})`;
    if (err.status === 400) return `Studio refused it: ${err.detail}`;
    // 401: the personal key that bound this chat was revoked, or its person disabled (issue 43).
    if (err.status === 401) return 'Studio no longer accepts the key this chat was admitted with (revoked, or its person disabled); send /key followed by a new personal key';
    // 403: past the chat's person's role, key scope or allow-list; Studio's detail names what.
    if (err.status === 403) return `Studio refused it: ${err.detail}`;
    if (err.status === 429) return `you reached a limit: ${err.detail}`;
    if (err.status === 503) return 'Studio is busy updating; try again in a minute';
    return `Studio could not do it: ${err.detail}`;
  }
  if (err instanceof ChatPlatformError) {
    if (/too big/i.test(err.message)) return 'the file is too big for the chat platform to hand over (20 MB at most)';
    return `the chat platform said: ${err.message}`;
  }
  if (err instanceof Error && (err.name === 'ZodError' || err.name === 'SyntaxError')) return 'Studio gave an answer the bot does not understand';
  return 'Studio is not answering right now';
}
