/**
 * Wiring of the people of one Studio (issue 43) for the composition root: built before
 * authentication, which asks it who a session or a personal key belongs to (`people`).
 */
import type { Db } from '../db/database.js';
import type { EventBus } from '../events/event-bus.js';
import type { Actor } from '../http/actor.js';
import type { People } from '../http/people.js';
import type { Allow, QuotaUse, Quotas, Role } from '../contracts/users.contract.js';
import type { StudioModule } from '../module.js';
import { usersRoutes } from './users.routes.js';
import { UsersService } from './users.service.js';
import { UsersStore } from './users.store.js';

export interface UsersModuleDeps {
  db: Db;
  events: EventBus;
  /** Close the open sockets of the people (or keys) that match (the hub, built later). */
  endAccess: (match: (actor: Actor) => boolean, reason: string) => void;
  /** A person's use of their quotas (the jobs module, built later, counts it). */
  useOf: (userId: string) => QuotaUse;
}

export interface UsersModule extends StudioModule {
  people: People;
  /** A person's stored quotas and allow-lists (the runner enforces them). */
  limitsOf: (userId: string) => { quotas: Quotas | null; allow: Allow | null } | null;
  /** A person's role now (null: unknown or disabled). */
  roleOf: (userId: string) => Role | null;
}

export function createUsersModule(deps: UsersModuleDeps): UsersModule {
  const service = new UsersService({ store: new UsersStore(deps.db), events: deps.events, endAccess: deps.endAccess, useOf: deps.useOf });
  return { name: 'users', routers: [usersRoutes(service)], people: service, limitsOf: (id) => service.limitsOf(id), roleOf: (id) => service.roleOf(id) };
}
