/**
 * The git a node package needs: clone at a pinned commit (recorded, so a snapshot can put the
 * same commit back), move an existing clone to another commit, read a clone's commit and origin,
 * and ask a remote for its newest commit. Never prompts: `GIT_TERMINAL_PROMPT=0`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DomainError } from '../domain-error.js';
import { runCommand, type RunResult } from '../process/run-command.js';
import { lastLines } from './pip-preview.js';

export interface GitRun {
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  onLine?: (line: string) => void;
}

async function git(run: GitRun, args: string[], cwd?: string): Promise<RunResult> {
  // git must never stop to ask for a password on a private URL: it would hang until the deadline.
  const env = { ...run.env, GIT_TERMINAL_PROMPT: '0' };
  return runCommand('git', args, { cwd, env, timeoutMs: run.timeoutMs, onLine: (line) => line.trim() && run.onLine?.(line) });
}

/** Questions (which commit, which origin) are not worth a line in the activity log. */
function quiet(run: GitRun): GitRun {
  return { ...run, onLine: undefined };
}

/**
 * What git's own words mean, for a person (null: nothing recognised). Checked in this order:
 * a network failure also mentions the URL, a missing local path also says "not a git repository".
 */
export function gitProblem(output: string): string | null {
  if (/Could not resolve host|Failed to connect|Connection refused|Connection timed out|Network is unreachable|Operation timed out|SSL certificate problem/i.test(output)) {
    return 'no network: the repository host could not be reached';
  }
  if (/not valid: is this a git repository|dumb http transport does not support/i.test(output)) return 'not a git repository (the URL answers, but not as git)';
  if (/not found|does not appear to be a git repository|could not read Username|terminal prompts disabled|Authentication failed|returned error: 40[134]/i.test(output)) {
    return 'the repository was not found (check the URL; a private repository needs access)';
  }
  if (/couldn't find remote ref|reference is not a tree|did not match any|not our ref|unadvertised object/i.test(output)) return 'that commit is not in the repository';
  return null;
}

/** A failed git step in words (`git clone: the repository was not found…`); git's own text travels beside it as `git_output`. */
function ensureOk(label: string, result: RunResult, timeoutMs: number): string {
  if (result.timedOut) throw new DomainError('failed', `${label} timed out after ${Math.round(timeoutMs / 1000)} s (a slow network, or a very large repository)`);
  if (result.code !== 0) {
    const raw = lastLines(result.stderr || result.stdout);
    throw new DomainError('failed', `${label}: ${gitProblem(raw) ?? `git failed (exit ${result.code ?? 'none'})`}`, { git_output: raw });
  }
  return result.stdout.trim();
}

/** The commit a remote's default branch points at. */
export async function remoteHead(run: GitRun, url: string): Promise<string> {
  const out = ensureOk('git ls-remote', await git(quiet(run), ['ls-remote', '--', url, 'HEAD']), run.timeoutMs);
  const sha = /^([0-9a-f]{40})\s+HEAD$/m.exec(out)?.[1];
  if (!sha) throw new DomainError('failed', `git ls-remote did not name the newest commit of ${url}`);
  return sha;
}

/** The commit checked out in `dir`, or null when it is not a git clone. */
export async function headCommit(run: GitRun, dir: string): Promise<string | null> {
  if (!fs.existsSync(path.join(dir, '.git'))) return null;
  const result = await git(quiet(run), ['rev-parse', 'HEAD'], dir);
  return result.code === 0 ? result.stdout.trim() : null;
}

/** The `origin` URL of the clone in `dir`, or null. */
export async function originUrl(run: GitRun, dir: string): Promise<string | null> {
  if (!fs.existsSync(path.join(dir, '.git'))) return null;
  const result = await git(quiet(run), ['config', '--get', 'remote.origin.url'], dir);
  return result.code === 0 && result.stdout.trim() ? result.stdout.trim() : null;
}

/** Clone `url` into `dest` (which must not exist) at `commit` (the default branch's head when null); returns the commit. */
export async function cloneAt(run: GitRun, url: string, dest: string, commit: string | null): Promise<string> {
  // git's own lines stay out of the log: a failure is said once, in words (`ensureOk`).
  ensureOk('git clone', await git(quiet(run), ['clone', '--depth', '1', '--', url, dest], path.dirname(dest)), run.timeoutMs);
  const head = await headCommit(run, dest);
  if (commit && head !== commit) await checkoutCommit(run, dest, commit);
  return commit ?? head ?? '';
}

/** Move the clone in `dir` to `commit`, fetching just that commit when the shallow clone lacks it. */
export async function checkoutCommit(run: GitRun, dir: string, commit: string): Promise<void> {
  const has = await git(quiet(run), ['cat-file', '-e', `${commit}^{commit}`], dir);
  if (has.code !== 0) ensureOk(`git fetch of commit ${commit.slice(0, 12)}`, await git(quiet(run), ['fetch', '--depth', '1', 'origin', commit], dir), run.timeoutMs);
  ensureOk(`git checkout of commit ${commit.slice(0, 12)}`, await git(quiet(run), ['checkout', '--quiet', '--detach', commit], dir), run.timeoutMs);
}
