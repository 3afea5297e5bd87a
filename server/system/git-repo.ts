/**
 * The local clone of `REPO_URL` in `STUDIO_DIR/.repo/` that update and sync copy from. Git runs
 * with the children's allowlisted environment (no Studio secrets) and never prompts: a
 * repository that needs credentials fails instead of hanging the request.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { DomainError } from '../domain-error.js';
import { runCommand } from '../process/run-command.js';

export interface GitRepoOptions {
  /** `STUDIO_DIR/.repo`. */
  dir: string;
  /** Read on every fetch: `REPO_URL` is editable at runtime. */
  url: () => string | null;
  env: Readonly<Record<string, string>>;
  timeoutMs?: number;
}

/** Clone, fetch and locate files of the update repository. */
export class GitRepo {
  constructor(private readonly options: GitRepoOptions) {}

  get dir(): string {
    return this.options.dir;
  }

  /** True once a clone exists (a remote-version check made it). */
  hasClone(): boolean {
    return fs.existsSync(path.join(this.options.dir, '.git'));
  }

  /** A path inside the clone. */
  file(...parts: string[]): string {
    return path.join(this.options.dir, ...parts);
  }

  /** Clone on first use, else fetch the remote's default branch and check it out; 500 when unreachable. */
  async fetch(): Promise<void> {
    const url = this.options.url();
    if (!url) throw new DomainError('failed', 'REPO_URL is not set, so there is no repository to update from');
    if (!this.hasClone()) {
      // Cloned beside the final place and renamed, so a half-finished clone never looks like one.
      const tmp = `${this.options.dir}.clone-${process.pid}`;
      await fsp.rm(tmp, { recursive: true, force: true });
      await this.git(['clone', '--depth', '1', '--', url, tmp], path.dirname(tmp), 'clone');
      await fsp.rm(this.options.dir, { recursive: true, force: true });
      await fsp.rename(tmp, this.options.dir);
      return;
    }
    await this.git(['remote', 'set-url', 'origin', url], this.options.dir, 'remote set-url');
    await this.git(['fetch', '--depth', '1', 'origin', 'HEAD'], this.options.dir, 'fetch');
    await this.git(['reset', '--hard', 'FETCH_HEAD'], this.options.dir, 'reset');
    await this.git(['clean', '-fdx'], this.options.dir, 'clean');
  }

  private async git(args: string[], cwd: string, what: string): Promise<void> {
    const result = await runCommand('git', args, {
      cwd,
      env: { ...this.options.env, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: 'echo' },
      timeoutMs: this.options.timeoutMs ?? 120_000,
    });
    if (result.code === 0) return;
    const why = result.timedOut ? 'timed out' : (result.stderr.trim() || `exit code ${result.code}`).slice(-500);
    throw new DomainError('failed', `git ${what} of the update repository failed: ${why}`);
  }
}
