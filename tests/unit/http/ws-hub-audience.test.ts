/**
 * The hub sends a message only to the people of its audience: a member's socket never receives a
 * frame about another person's record, while the owner and admins receive everything.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { OWNER_ACTOR, type Actor } from '../../../server/http/actor.js';
import { ownerAudience, WsHub } from '../../../server/http/ws-hub.js';
import { silentLogger } from '../../../server/logging.js';

class FakeSocket {
  readonly OPEN = 1;
  readyState = 1;
  bufferedAmount = 0;
  readonly sent: unknown[] = [];
  send(data: unknown): void {
    this.sent.push(data);
  }
  on(): this {
    return this;
  }
  close(): void {}
  terminate(): void {}
}

const member = (userId: string): Actor => ({ userId, name: userId, role: 'member', scope: null });
const hubs: WsHub[] = [];
afterEach(() => hubs.splice(0).forEach((h) => h.close()));

function connected(...actors: Actor[]): { hub: WsHub; sockets: FakeSocket[] } {
  const hub = new WsHub(silentLogger, 60_000);
  hubs.push(hub);
  const sockets = actors.map((actor) => {
    const socket = new FakeSocket();
    hub.add(socket as unknown as WebSocket, undefined, '127.0.0.1', null, actor);
    return socket;
  });
  return { hub, sockets };
}

describe('the hub sends to its audience', () => {
  it('a record owned by A reaches A, an admin and the owner, never B', () => {
    const admin: Actor = { userId: 'adm', name: 'adm', role: 'admin', scope: null };
    const { hub, sockets } = connected(member('a'), member('b'), admin, OWNER_ACTOR);
    hub.broadcast('job.deleted', { prompt_ids: ['p1'] }, ownerAudience('a'));
    hub.broadcastBinary(ownerAudience('a'), Buffer.from([1, 2, 3]));
    expect(sockets.map((s) => s.sent.length)).toEqual([2, 0, 2, 2]);
  });

  it('a message with no audience reaches everyone; an old record (no owner) is the owner’s', () => {
    const { hub, sockets } = connected(member('a'), OWNER_ACTOR);
    hub.broadcast('job.deleted', { prompt_ids: ['p1'] });
    hub.broadcast('job.deleted', { prompt_ids: ['p2'] }, ownerAudience(null));
    expect(sockets.map((s) => s.sent.length)).toEqual([1, 2]);
  });
});
