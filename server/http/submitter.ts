/**
 * Who submitted a job, for the queue's fair share: a browser session (`session:<sid>`), an API key
 * client (`key:<address>`: one key is shared, so clients are told apart by address), or a chat of
 * the chat bot (`chat:<id>`, sent by the in-process bot in `X-Studio-Submitter`; only the bot's
 * credential may name a submitter, so no client can pose as many). A person other than the owner
 * is one submitter however many browsers, keys and bound chats they use (`user:<id>`).
 */
import type { Request, Response } from 'express';
import { OWNER_ID } from '../contracts/users.contract.js';
import { actorOf } from './actor.js';
import { clientAddress, type AuthResult } from './authenticator.js';

const SUBMITTER_HEADER = 'X-Studio-Submitter';

/** Kept by `requireAuth` for the routes that need to know who is asking. */
export function rememberAuth(res: Response, result: AuthResult): void {
  (res.locals as { auth?: AuthResult }).auth = result;
}

/** The fair-share key of the request's submitter. */
export function submitterOf(req: Request, res: Response): string {
  const auth = (res.locals as { auth?: AuthResult }).auth;
  const actor = actorOf(res);
  if (auth && actor.userId !== OWNER_ID) return `user:${actor.userId}`;
  switch (auth?.kind) {
    case 'cookie':
      return `session:${auth.session.sid}`;
    case 'key':
      return `key:${clientAddress(req)}`;
    case 'internal': {
      const named = req.get(SUBMITTER_HEADER)?.trim().slice(0, 100);
      return named ? named : 'internal';
    }
    default:
      return 'anonymous';
  }
}
