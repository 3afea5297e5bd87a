/**
 * The chat platform library (grammY), loaded on first use rather than imported at the top: the
 * spec has a "bot library missing" state (status shows the error, start answers 500), and a
 * packaged app without the library must still boot. Tests inject a loader that throws.
 */
import type * as Grammy from 'grammy';

/** The parts of grammY the bot uses: the raw API client, file uploads and its error classes. */
export type ChatbotLibrary = Pick<typeof Grammy, 'Api' | 'InputFile' | 'GrammyError' | 'HttpError'>;

/** Loads the library; rejects when it is not installed. */
export type ChatbotLibraryLoader = () => Promise<ChatbotLibrary>;

/** The real loader: a dynamic import of grammY. */
export const loadGrammy: ChatbotLibraryLoader = async () => {
  const lib = await import('grammy');
  return { Api: lib.Api, InputFile: lib.InputFile, GrammyError: lib.GrammyError, HttpError: lib.HttpError };
};
