/**
 * The event log as `studio.ts` exposes it: its route, and every event pushed to the WebSocket
 * clients as it is recorded, to the people who may see it (a member only their own).
 */
import type { WsHub } from './ws-hub.js';
import type { StudioModule } from '../module.js';
import type { EventBus } from '../events/event-bus.js';
import { eventsRoutes, maySeeEvent } from './events.routes.js';

export function createEventsModule(deps: { events: EventBus; hub: WsHub }): StudioModule {
  const off = deps.events.subscribe((event) => deps.hub.broadcast('event', event, (actor) => maySeeEvent(actor, event)));
  return { name: 'events', routers: [eventsRoutes(deps.events)], stop: off };
}
