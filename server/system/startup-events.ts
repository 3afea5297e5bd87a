/**
 * The events Studio records once it listens: that it started (version, port, engine mode), and
 * when it kept to loopback because the API key is too weak for a network, how to open it up.
 */
import { MIN_LAN_KEY_LENGTH, type Config } from '../config.js';
import type { EventBus } from '../events/event-bus.js';

export function announceStart(config: Readonly<Config>, events: EventBus, port: number): void {
  events.emit('system.backend.started', 'info', `Studio ${config.version} started on port ${port}`, {
    version: config.version,
    port,
    host: config.host,
    engine_mode: config.engine.mode,
  });
  if (!config.loopbackReason) return;
  const why =
    config.loopbackReason === 'default-key' ? 'Studio uses the built-in API key' : `API_KEY is shorter than ${MIN_LAN_KEY_LENGTH} characters, too short to expose on a network`;
  events.emit(
    'system.security',
    'warning',
    `${why}, so it listens on 127.0.0.1 only. To open LAN access, set API_KEY to a random secret of at least ` +
      `${MIN_LAN_KEY_LENGTH} characters (and STUDIO_HOST if 0.0.0.0 is not wanted) and restart Studio.`,
    { host: config.host, requested_host: config.requestedHost, reason: config.loopbackReason },
  );
}
