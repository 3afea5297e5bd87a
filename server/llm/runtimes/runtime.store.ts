/**
 * The installed llama.cpp builds (`llm/runtimes/runtimes.json`, written atomically): each build's
 * folder, binary, version, variant and smoke-test result, which one is active and which was active
 * before it (the one-click rollback). Only builds that passed their smoke test are ever recorded.
 */
import fs from 'node:fs';
import { z } from 'zod';
import { writeFileAtomic } from '../../fs-durable.js';

const buildSchema = z.object({
  id: z.string(),
  tag: z.string(),
  variant: z.string(),
  backend: z.string(),
  /** Where it came from: the archive name, or `source` for a build from source. */
  origin: z.string(),
  dir: z.string(),
  binary: z.string(),
  version: z.string().nullable(),
  installed_at: z.string(),
  devices: z.array(z.string()),
  gpu_layers: z.number().nullable(),
  reason: z.string().nullable(),
});

const fileSchema = z.object({
  active: z.string().nullable(),
  previous: z.string().nullable(),
  builds: z.array(buildSchema),
});

export type InstalledBuild = z.infer<typeof buildSchema>;
type RuntimesFile = z.infer<typeof fileSchema>;

function readRuntimes(file: string): RuntimesFile {
  try {
    const parsed = fileSchema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
    if (parsed.success) return parsed.data;
  } catch {
    // None installed yet (or unreadable: then none are known, the folders stay on disk).
  }
  return { active: null, previous: null, builds: [] };
}

export class RuntimeStore {
  private read: RuntimesFile | null = null;

  constructor(private readonly file: string) {}

  /**
   * The file, read on first use: most starts never ask for a build, and validating it builds the
   * schema (the property read alone did, ~5-9 ms of the start even with no file; profiled, #29).
   */
  private get data(): RuntimesFile {
    this.read ??= readRuntimes(this.file);
    return this.read;
  }

  builds(): InstalledBuild[] {
    return [...this.data.builds];
  }

  get(id: string): InstalledBuild | undefined {
    return this.data.builds.find((b) => b.id === id);
  }

  get activeId(): string | null {
    return this.data.active;
  }

  get previousId(): string | null {
    return this.data.previous;
  }

  /** The active build whose binary is still on disk, or null. */
  active(): InstalledBuild | null {
    const build = this.data.active ? this.get(this.data.active) : undefined;
    return build && fs.existsSync(build.binary) ? build : null;
  }

  /** Record (or replace) a build. */
  async add(build: InstalledBuild): Promise<void> {
    this.data.builds = [...this.data.builds.filter((b) => b.id !== build.id), build];
    await this.write();
  }

  /** Make `id` active; the build active before becomes the rollback target. */
  async activate(id: string): Promise<void> {
    if (this.data.active !== id) {
      this.data.previous = this.data.active;
      this.data.active = id;
    }
    await this.write();
  }

  /** Forget a build (its folder is the caller's to delete). */
  async remove(id: string): Promise<void> {
    this.data.builds = this.data.builds.filter((b) => b.id !== id);
    if (this.data.active === id) this.data.active = null;
    if (this.data.previous === id) this.data.previous = null;
    await this.write();
  }

  private async write(): Promise<void> {
    await writeFileAtomic(this.file, JSON.stringify(this.data, null, 2));
  }
}
