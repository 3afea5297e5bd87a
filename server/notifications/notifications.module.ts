/**
 * The notifications capability (issue 47) as `studio.ts` builds it: the store, the service that
 * listens to the event bus once Studio starts, and the routes. It reads jobs and thumbnails only
 * through the functions the composition root hands it.
 */
import type { Db } from '../db/database.js';
import type { EventBus } from '../events/event-bus.js';
import type { Logger } from '../logging.js';
import type { StudioModule } from '../module.js';
import { sleep } from '../process/sleep.js';
import type { JobRecord } from '../contracts/jobs.contract.js';
import type { Role } from '../contracts/users.contract.js';
import { notificationsRoutes } from './notifications.routes.js';
import { NotificationsService } from './notifications.service.js';
import { NotifyStore } from './notify.store.js';

export interface NotificationsModuleDeps {
  db: Db;
  events: EventBus;
  logger: Logger;
  baseUrl: () => string;
  job: (promptId: string) => JobRecord | null;
  thumbnail: (job: JobRecord) => Promise<Buffer | null>;
  roleOf: (userId: string) => Role | null;
  /** The wait between attempts (tests shorten it). */
  sleep?: (ms: number) => Promise<void>;
}

export interface NotificationsModule extends StudioModule {
  service: NotificationsService;
}

export function createNotificationsModule(deps: NotificationsModuleDeps): NotificationsModule {
  // Stopping ends every wait between attempts at once (the service then makes no further attempt).
  const stopping = new AbortController();
  const service = new NotificationsService({
    store: new NotifyStore(deps.db),
    events: deps.events,
    logger: deps.logger,
    baseUrl: deps.baseUrl,
    job: deps.job,
    thumbnail: deps.thumbnail,
    roleOf: deps.roleOf,
    sleep: deps.sleep ?? ((ms) => sleep(ms, stopping.signal)),
  });
  return {
    name: 'notifications',
    routers: [notificationsRoutes(service)],
    service,
    start: async () => service.start(),
    stop: async () => {
      stopping.abort();
      await service.stop();
    },
  };
}
