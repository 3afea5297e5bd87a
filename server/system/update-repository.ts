/**
 * The repository Studio updates itself from (`REPO_URL`), set on the System page through a route of
 * its own rather than the environment route (the spec names that route's five variables). Stored in
 * settings, where it wins over the environment; handed to git, so it must be a plain `https://` URL.
 */
import { DomainError } from '../domain-error.js';
import type { EventBus } from '../events/event-bus.js';
import type { UpdateRepositoryAnswer } from '../contracts/system.contract.js';
import type { Secrets } from './secrets.store.js';

export class UpdateRepository {
  constructor(private readonly deps: { secrets: Secrets; events: EventBus }) {}

  /** The repository in force and its source. */
  current(): UpdateRepositoryAnswer {
    return { repo_url: this.deps.secrets.get('REPO_URL'), source: this.deps.secrets.source('REPO_URL') };
  }

  /** Store `url` (an `https://` URL without credentials) or clear it with `""`. */
  set(raw: string): UpdateRepositoryAnswer {
    const url = raw.trim();
    if (url !== '') checkRepositoryUrl(url);
    this.deps.secrets.set('REPO_URL', url);
    this.deps.events.emit('settings.env.updated', 'info', `REPO_URL was ${url ? 'changed' : 'cleared'} on the System page`, { key: 'REPO_URL', set: url !== '' });
    return this.current();
  }
}

function checkRepositoryUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DomainError('invalid', 'url: not a URL (an https:// git URL)');
  }
  if (parsed.protocol !== 'https:') throw new DomainError('invalid', 'url: only https:// repositories are accepted');
  // Shown on the System page and in events: a password in it would be shown too.
  if (parsed.username || parsed.password) throw new DomainError('invalid', 'url: must not carry a user name or password');
  if (/[\s\0]/.test(url)) throw new DomainError('invalid', 'url: must not contain spaces or control characters');
}
