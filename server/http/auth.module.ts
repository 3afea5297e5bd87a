/**
 * Authentication as `studio.ts` builds it: signed session cookies (revocable, stored in the
 * database), the key check with its limiter (a throttle is a warning event), the login routes,
 * and the in-process credential Studio's own clients use instead of the public key check.
 */
import type { Config } from '../config.js';
import { loadSessionSecret } from '../config/data-dir.js';
import type { Db } from '../db/database.js';
import type { EventBus } from '../events/event-bus.js';
import type { StudioModule } from '../module.js';
import { authRoutes } from './auth.routes.js';
import { Authenticator } from './authenticator.js';
import { KeyLimiter } from './key-limiter.js';
import { RevokedSessionStore } from './revoked-sessions.store.js';
import { SessionSigner } from './session.js';
import { SignInLog } from './sign-in-log.js';
import { SettingsStore } from '../db/settings.store.js';
import type { People } from './people.js';

export interface AuthModuleDeps {
  config: Readonly<Config>;
  db: Db;
  events: EventBus;
  /** The API key in force, read on every check: a key changed in settings applies at once and ends every session. */
  apiKey: () => string;
  /** The people of this Studio (issue 43): personal keys, sessions signed in by name and password. */
  people?: People;
}

export interface AuthModule extends StudioModule {
  signer: SessionSigner;
  auth: Authenticator;
  /** The devices that signed in (the first-run guide's "sign in from a phone"). */
  signIns: SignInLog;
}

export function createAuthModule(deps: AuthModuleDeps): AuthModule {
  const signer = new SessionSigner(loadSessionSecret(deps.config.paths.sessionSecret), deps.apiKey, Date.now, new RevokedSessionStore(deps.db));
  const auth = new Authenticator(
    signer,
    new KeyLimiter(),
    (address, verdict, subject) =>
      deps.events.emit(
        'auth.throttled',
        'warning',
        verdict.scope === 'global'
          ? 'Too many wrong API keys from several addresses; key checks paused for everyone for a minute'
          : verdict.scope === 'person'
            ? `Too many wrong passwords for "${subject ?? ''}"; their sign-ins paused for a minute`
            : `Too many wrong API keys from ${address}; key checks paused for it for a minute`,
        { address, scope: verdict.scope, retry_after_s: verdict.retryAfterS, ...(subject === undefined ? {} : { tried_name: subject }) },
      ),
    deps.people ?? null,
  );
  const signIns = new SignInLog(new SettingsStore(deps.db));
  return { name: 'auth', routers: [authRoutes({ auth, signIns, events: deps.events })], signer, auth, signIns };
}
