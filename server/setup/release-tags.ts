/** The engine's release tags, read from its repository with `git ls-remote` (no clone). */
import type { ReleaseList } from '../contracts/setup.contract.js';
import { DomainError } from '../domain-error.js';
import { runCommand } from '../process/run-command.js';
import { compareVersions } from '../versions.js';

/** Release-looking tags (`v0.3.40`, `0.29.0`), newest first. */
export async function releaseTags(repoUrl: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<string[]> {
  const result = await runCommand('git', ['ls-remote', '--tags', '--refs', '--', repoUrl], { env: { ...env, GIT_TERMINAL_PROMPT: '0' }, timeoutMs });
  if (result.code !== 0 || result.timedOut) {
    const why = result.timedOut ? 'it did not answer in time' : (result.stderr.trim().split('\n').pop() ?? `exit ${result.code}`);
    throw new DomainError('unreachable', `Could not list the engine's releases from ${repoUrl}: ${why}`);
  }
  const tags = result.stdout
    .split('\n')
    .map((line) => /refs\/tags\/(.+)$/.exec(line.trim())?.[1])
    .filter((tag): tag is string => Boolean(tag && /^v?\d+\.\d+(\.\d+)?$/.test(tag)));
  return [...new Set(tags)].sort((a, b) => compareVersions(b.replace(/^v/, ''), a.replace(/^v/, '')));
}

/** The list with the tags newer than `current` ("0.3.40" or "v0.3.40"). */
export function releaseList(repository: string, tags: string[], current: string | null): ReleaseList {
  const bare = current?.replace(/^v/, '') ?? null;
  const newer = bare && /^\d/.test(bare) ? tags.filter((tag) => compareVersions(tag.replace(/^v/, ''), bare) > 0) : [];
  return { repository, current, tags, newer };
}
