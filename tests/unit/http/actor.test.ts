import { describe, expect, it } from 'vitest';
import type { Response } from 'express';
import { actorOf, mayAdminister, mayRun, mayTouch, OWNER_ACTOR, seesEveryone, setActor, type Actor } from '../../../server/http/actor.js';

const person = (role: Actor['role'], scope: Actor['scope'] = null, userId = 'u1'): Actor => ({ userId, name: userId, role, scope });

describe('the actor of a request', () => {
  it('is the owner until authentication names someone else', () => {
    const res = { locals: {} } as unknown as Response;
    expect(actorOf(res)).toBe(OWNER_ACTOR);
    const member = person('member');
    setActor(res, member);
    expect(actorOf(res)).toBe(member);
  });

  it('owners and admins touch every record; members and viewers only their own', () => {
    expect(seesEveryone(OWNER_ACTOR)).toBe(true);
    expect(mayTouch(person('admin'), 'someone-else')).toBe(true);
    expect(mayTouch(person('member', null, 'a'), 'a')).toBe(true);
    expect(mayTouch(person('member', null, 'b'), 'a')).toBe(false);
    expect(mayTouch(person('viewer', null, 'b'), null)).toBe(false); // an old record belongs to the owner
    expect(mayTouch(OWNER_ACTOR, null)).toBe(true);
  });

  it('viewers and read keys run nothing; only owner or admin with a full or admin key administer', () => {
    expect(mayRun(person('member'))).toBe(true);
    expect(mayRun(person('member', 'read'))).toBe(false);
    expect(mayRun(person('viewer'))).toBe(false);
    expect(mayAdminister(OWNER_ACTOR)).toBe(true);
    expect(mayAdminister(person('admin', 'run'))).toBe(false);
    expect(mayAdminister(person('admin', 'admin'))).toBe(true);
    expect(mayAdminister(person('member'))).toBe(false);
  });
});
