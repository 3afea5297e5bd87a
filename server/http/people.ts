/**
 * What authentication asks of the people of this Studio (issue 43). The `users/` capability
 * answers it; `http/` names only the questions, so shared infrastructure imports no capability.
 * Without it (a test building the HTTP layer alone), every authenticated caller is the owner.
 */
import type { Actor } from './actor.js';

export interface People {
  /** The person a session cookie names; null once they are disabled or their sessions were ended after `issuedAtMs`. */
  sessionActor(userId: string, issuedAtMs: number): Actor | null;
  /** The person and scope of a personal key; null for an unknown or revoked key, or a disabled person. */
  keyActor(candidate: string): Actor | null;
  /**
   * The person a chat-bot chat is bound to, by the id of the personal key that admitted it (sent only
   * with Studio's internal credential); null once that key is revoked or its person disabled.
   */
  boundActor(userId: string, keyId: string): Actor | null;
  /** A person signing in by name and password (slow on purpose); null when either is wrong or the person is disabled. */
  signIn(name: string, password: string): Promise<Actor | null>;
}
