/**
 * A test-only door into a Studio's routes as someone other than the owner. Until real sign-in of
 * people lands, requests name their person in `X-Test-Person` (a header only this test app reads,
 * never Studio's): the app mounts the Studio's own routers behind a middleware that sets that
 * person as the actor, so every route runs its real service against the real database and files.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { setActor, type Actor } from '../../server/http/actor.js';
import { errorMiddleware, notFound } from '../../server/http/error-middleware.js';
import type { Studio } from '../../server/studio.js';

export interface PersonDoor {
  /** fetch as `person` (the owner of Studio when absent). */
  as(person: Actor | null, pathname: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/** A member (or another role) named `id`. */
export function person(id: string, role: Actor['role'] = 'member'): Actor {
  return { userId: id, name: id, role, scope: null };
}

/** Serve `studio`'s routers on a loopback port, each request as the person its header names. */
export async function openPersonDoor(studio: Studio, people: readonly Actor[]): Promise<PersonDoor> {
  const byId = new Map(people.map((p) => [p.userId, p]));
  const app = express();
  app.use((req, res, next) => {
    const who = byId.get(String(req.headers['x-test-person'] ?? ''));
    if (who) setActor(res, who);
    next();
  });
  app.use(express.json({ limit: '5mb' }));
  for (const router of studio.modules.flatMap((m) => m.routers)) app.use(router);
  app.all(['/api', '/api/{*rest}'], notFound());
  app.use(errorMiddleware(studio.logger));
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    as: (who, pathname, init = {}) => fetch(base + pathname, { ...init, headers: { ...(init.headers as Record<string, string>), ...(who ? { 'X-Test-Person': who.userId } : {}) } }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
