/**
 * The fair-share key of a request (issue 43): a person other than the owner is one submitter
 * whatever browser or key they use; the owner's clients stay apart by session or address.
 */
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { OWNER_ACTOR, setActor, type Actor } from '../../../server/http/actor.js';
import type { AuthResult } from '../../../server/http/authenticator.js';
import { rememberAuth, submitterOf } from '../../../server/http/submitter.js';

function request(result: AuthResult): { req: Request; res: Response } {
  const res = { locals: {} } as Response;
  rememberAuth(res, result);
  if ('actor' in result) setActor(res, result.actor);
  const req = { socket: { remoteAddress: '::ffff:10.0.0.7' }, get: () => undefined } as unknown as Request;
  return { req, res };
}

describe('submitterOf', () => {
  const ann: Actor = { userId: 'u_ann', name: 'Ann', role: 'member', scope: null };
  const session = { sid: 's1', iat: 0, exp: 1, k: 'k' };
  it('is user:<id> for a person, by session or by key alike', () => {
    expect(submitterOf(...tuple(request({ kind: 'cookie', session: { ...session, u: 'u_ann' }, actor: ann })))).toBe('user:u_ann');
    expect(submitterOf(...tuple(request({ kind: 'key', actor: { ...ann, scope: 'run', keyId: 'k_1' } })))).toBe('user:u_ann');
  });
  it("keeps the owner's clients apart as before", () => {
    expect(submitterOf(...tuple(request({ kind: 'cookie', session, actor: OWNER_ACTOR })))).toBe('session:s1');
    expect(submitterOf(...tuple(request({ kind: 'key', actor: OWNER_ACTOR })))).toBe('key:10.0.0.7');
  });
});

function tuple({ req, res }: { req: Request; res: Response }): [Request, Response] {
  return [req, res];
}
