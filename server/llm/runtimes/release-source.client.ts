/**
 * The release source: llama.cpp's releases as GitHub's REST API lists them
 * (`GET <base>/releases?per_page=N`, newest first; each release has `tag_name`, `published_at`,
 * `draft`, `prerelease` and `assets[]` with `name`, `size`, `browser_download_url` and, for assets
 * uploaded since mid-2025, `digest: "sha256:…"`). The base URL is configurable
 * (`LLM_RELEASES_URL`), so tests point it at a local fake that answers the same way.
 */
import { z } from 'zod';
import { DomainError } from '../../domain-error.js';
import type { ReleaseAsset } from './release-assets.js';

const assetSchema = z.object({
  name: z.string(),
  size: z.number(),
  browser_download_url: z.string(),
  digest: z.string().nullish(),
});

const releaseSchema = z.object({
  tag_name: z.string(),
  published_at: z.string().nullish(),
  draft: z.boolean().optional(),
  prerelease: z.boolean().optional(),
  html_url: z.string().optional(),
  assets: z.array(assetSchema),
});

/**
 * Tags and asset names become folder and file names under the runtimes folder: from a release
 * source they are names, never paths. A release whose tag is not one is skipped; so is such an asset.
 */
const PLAIN_NAME = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,199}$/;

/** Whether a tag or asset name from the release source can be used as one file name. */
export function isPlainName(name: string): boolean {
  return PLAIN_NAME.test(name) && !name.includes('..');
}

export interface Release {
  tag: string;
  publishedAt: string | null;
  url: string | null;
  assets: ReleaseAsset[];
}

export class ReleaseSourceClient {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs = 15_000,
  ) {}

  /** The newest published (not draft, not pre-release) releases, newest first. */
  async releases(count = 5): Promise<Release[]> {
    const url = `${this.baseUrl.replace(/\/+$/, '')}/releases?per_page=${count}`;
    let res: Response;
    try {
      res = await fetch(url, { headers: { Accept: 'application/vnd.github+json', 'X-GitHub-Api-Version': '2022-11-28' }, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (err) {
      throw new DomainError('unreachable', `The llama.cpp release source did not answer (${url}): ${(err as Error).message}`);
    }
    if (!res.ok) throw new DomainError('upstream', `The llama.cpp release source answered ${res.status} (${url})${res.status === 403 ? ': probably its rate limit; try again later' : ''}`);
    const parsed = z.array(releaseSchema).safeParse(await res.json().catch(() => null));
    if (!parsed.success) throw new DomainError('upstream', `The llama.cpp release source sent something that is not a release list (${url})`);
    return parsed.data
      .filter((r) => !r.draft && !r.prerelease && isPlainName(r.tag_name))
      .map((r) => ({
        tag: r.tag_name,
        publishedAt: r.published_at ?? null,
        url: r.html_url ?? null,
        assets: r.assets.filter((a) => isPlainName(a.name) && a.size >= 0).map((a) => ({ name: a.name, size: a.size, url: a.browser_download_url, digest: a.digest ?? null })),
      }));
  }
}
