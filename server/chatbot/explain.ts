/** Failures told to a chat user in plain words, without stack traces or internal names. */
import { ChatPlatformError } from './chat-platform.client.js';
import { StudioApiError } from './studio-api.client.js';

/** One sentence saying what went wrong. */
export function explain(err: unknown): string {
  if (err instanceof StudioApiError) {
    if (err.status === 404) return `Studio does not know it (${err.detail})`;
    if (err.status === 400) return `Studio refused it: ${err.detail}`;
    if (err.status === 401 || err.status === 403) return 'Studio refused the bot\'s key; the owner should check the API key';
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
