/**
 * The repository host's file listing (`GET <base>/api/models/<owner>/<name>/tree/main?recursive=true`:
 * `[{type, path, size, oid, lfs?: {oid, size}}]`, where `lfs.oid` is the file's SHA-256), with
 * the token for gated or private repositories. The base is `REPOHOST_BASE_URL`, so tests point
 * it at a local fake.
 */
import { z } from 'zod';
import { DomainError } from '../../domain-error.js';

const treeSchema = z.array(
  z.looseObject({
    type: z.string(),
    path: z.string(),
    size: z.number().nonnegative(),
    lfs: z.looseObject({ oid: z.string(), size: z.number() }).nullish(),
  }),
);

export interface RepoFile {
  path: string;
  size: number;
  /** The SHA-256 the host publishes for a large file, or null. */
  sha256: string | null;
}

export const REPO_ID = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

export class RepoFilesClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token: () => string | null,
  ) {}

  /** Every file of `repo` (owner/name) on its main branch. */
  async list(repo: string): Promise<RepoFile[]> {
    const url = `${this.baseUrl.replace(/\/+$/, '')}/api/models/${repo.split('/').map(encodeURIComponent).join('/')}/tree/main?recursive=true`;
    const token = this.token();
    let res: Response;
    try {
      res = await fetch(url, { headers: token ? { Authorization: `Bearer ${token}` } : {}, signal: AbortSignal.timeout(20_000) });
    } catch (err) {
      throw new DomainError('unreachable', `The repository host did not answer: ${(err as Error).message}`);
    }
    if (res.status === 404) throw new DomainError('not_found', `No repository ${repo} on the repository host (or it is private: set HUB_TOKEN)`);
    if (res.status === 401 || res.status === 403) throw new DomainError('rejected', `The repository host refused to list ${repo} (${res.status}): it is gated or private; set HUB_TOKEN in Settings and accept its terms on the host`);
    if (!res.ok) throw new DomainError('upstream', `The repository host answered ${res.status} for ${repo}`);
    const parsed = treeSchema.safeParse(await res.json().catch(() => null));
    if (!parsed.success) throw new DomainError('upstream', `The repository host sent an unexpected file list for ${repo}`);
    return parsed.data
      .filter((f) => f.type === 'file')
      .map((f) => ({ path: f.path, size: f.lfs?.size ?? f.size, sha256: f.lfs && /^[0-9a-f]{64}$/i.test(f.lfs.oid) ? f.lfs.oid.toLowerCase() : null }));
  }
}
