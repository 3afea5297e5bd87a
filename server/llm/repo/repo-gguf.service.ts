/**
 * Any GGUF from the repository host: a repository's `.gguf` files with their size and
 * quantization (read from the name, as every GGUF publisher writes it: `…-Q4_K_M.gguf`), the fit
 * estimate of each, the recommendation (the largest that fits fully on the GPU; when none does,
 * the smallest), and adding the chosen one to the LLM catalog, after which it downloads like any
 * catalog model (with `HUB_TOKEN` where the repository is gated).
 */
import path from 'node:path';
import { DomainError, notFound } from '../../domain-error.js';
import type { RepoGgufView } from '../../contracts/llm-repo.contract.js';
import { safeFileNameSchema } from '../../contracts/catalog.contract.js';
import type { FitEstimateWire } from '../../contracts/llm-fit.contract.js';
import type { LlmCatalog } from '../llm-catalog.js';
import { REPO_ID, type RepoFilesClient } from './repo-files.client.js';

/** The quantization a GGUF file name carries (`Q4_K_M`, `IQ3_XXS`, `Q8_0`, `F16`, `BF16`), or null. */
function quantizationOf(name: string): string | null {
  const m = /(?:^|[-_.])((?:I?Q\d(?:_[A-Z0-9]+)*)|BF16|F16|F32)(?=[-_.])/i.exec(path.basename(name));
  return m ? m[1]!.toUpperCase() : null;
}

/** A part of a split model (`-00002-of-00003.gguf`) other than the first, or the first of one. */
const SPLIT = /-(\d{5})-of-(\d{5})\.gguf$/i;

export interface RepoGgufDeps {
  client: RepoFilesClient;
  catalog: LlmCatalog;
  /** The fit estimate of a file of `bytes` (free GPU memory and context as configured). */
  estimate: (bytes: number) => Promise<FitEstimateWire>;
}

export class RepoGgufService {
  constructor(private readonly deps: RepoGgufDeps) {}

  /** `GET /api/admin/llm/repo-files?repo=owner/name`. */
  async list(repo: string): Promise<RepoGgufView> {
    if (!REPO_ID.test(repo)) throw new DomainError('invalid', 'repo must look like owner/name');
    const files = (await this.deps.client.list(repo)).filter((f) => f.path.toLowerCase().endsWith('.gguf'));
    const catalogued = new Set(this.deps.catalog.entries().map((e) => e.file));
    const out = [];
    for (const f of files) {
      const split = SPLIT.exec(f.path);
      const kind = /mmproj/i.test(f.path) ? ('projector' as const) : split ? ('split' as const) : ('model' as const);
      const file = path.posix.basename(f.path);
      out.push({
        path: f.path,
        file,
        size: f.size,
        quantization: quantizationOf(f.path),
        sha256: f.sha256,
        kind,
        in_catalog: catalogued.has(file),
        fit: await this.deps.estimate(f.size),
      });
    }
    out.sort((a, b) => a.size - b.size);
    const usable = out.filter((f) => f.kind === 'model');
    const fully = usable.filter((f) => f.fit.fit === 'gpu');
    const pick = fully[fully.length - 1] ?? usable[0] ?? null;
    const reason = !pick
      ? files.length ? 'No single-file model here (only split parts or projectors)' : 'This repository has no .gguf files'
      : fully.length ? `${pick.file} is the largest that fits fully on the GPU` : `None fits fully on the GPU: ${pick.file} is the smallest`;
    return { repo, files: out, recommended: pick?.path ?? null, reason };
  }

  /** `POST /api/admin/llm/repo-files/add`: the file joins the LLM catalog (category "From repositories"). */
  async add(repo: string, filePath: string): Promise<{ status: 'added' | 'exists'; file: string }> {
    const view = await this.list(repo);
    const hit = view.files.find((f) => f.path === filePath);
    if (!hit) throw notFound(`${filePath} is not a .gguf file of ${repo}`);
    if (hit.kind !== 'model') throw new DomainError('invalid', `${hit.file} is ${hit.kind === 'split' ? 'one part of a split model' : 'a vision projector'}, not a model Studio can run alone`);
    // The repository names its files as it likes; the catalog holds only names safe on every disk.
    const name = safeFileNameSchema.safeParse(hit.file);
    if (!name.success) throw new DomainError('invalid', `${hit.file}: ${name.error.issues[0]?.message ?? 'file is not a usable name'}`);
    const added = await this.deps.catalog.add(
      {
        name: `${repo.split('/')[1]} ${hit.quantization ?? ''}`.trim(),
        file: hit.file,
        dest: '.',
        size_gb: Math.round((hit.size / 1e9) * 100) / 100,
        tags: ['gguf', ...(hit.quantization ? [hit.quantization] : [])],
        source: 'repohost',
        hosted_repo: repo,
        ...(hit.path !== hit.file ? { repo_path: hit.path } : {}),
        ...(hit.sha256 ? { sha256: hit.sha256 } : {}),
      },
      { id: 'from_repositories', name: 'From repositories' },
    );
    return { status: added ? 'added' : 'exists', file: hit.file };
  }
}
