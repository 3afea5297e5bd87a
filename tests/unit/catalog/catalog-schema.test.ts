import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  CATALOG_FILE_NAMES,
  catalogEntries,
  catalogEntrySchema,
  catalogFileSchema,
  catalogSchemaFor,
  llmCatalogFileSchema,
  type CatalogFile,
  type CatalogKind,
} from '../../../server/contracts/catalog.contract.js';
import { compatibleLoras } from '../../../server/catalog/lora-pairs.js';
import { resolveSourceUrl } from '../../../server/catalog/source-urls.js';

const SHIPPED = fileURLToPath(new URL('../../../resources/catalogs/', import.meta.url));

function loadShipped(kind: CatalogKind): CatalogFile {
  const raw: unknown = JSON.parse(fs.readFileSync(path.join(SHIPPED, CATALOG_FILE_NAMES[kind]), 'utf8'));
  return catalogSchemaFor(kind).parse(raw);
}

const entry = (over: Record<string, unknown> = {}) => ({
  name: 'X',
  file: 'x.safetensors',
  dest: 'checkpoints',
  size_gb: 1,
  tags: [],
  source: 'repohost',
  hosted_repo: 'owner/repo',
  ...over,
});

describe('shipped catalogs', () => {
  const catalogs = { models: loadShipped('models'), loras: loadShipped('loras'), llm: loadShipped('llm') };

  it('all three parse with their schema and have a version and a date', () => {
    for (const catalog of Object.values(catalogs)) {
      expect(catalog.version).toBeGreaterThanOrEqual(1);
      expect(catalog.date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
      expect(catalogEntries(catalog).length).toBeGreaterThan(5);
    }
  });

  it('keys every entry by a unique file, across models and LoRAs too (downloads share one key space)', () => {
    const files = [...catalogEntries(catalogs.models), ...catalogEntries(catalogs.loras)].map((hit) => hit.entry.file);
    expect(new Set(files).size).toBe(files.length);
    const llmFiles = catalogEntries(catalogs.llm).map((hit) => hit.entry.file);
    expect(new Set(llmFiles).size).toBe(llmFiles.length);
  });

  it('contains every file the shipped workflows load, in the folder the engine reads', () => {
    const required: Array<[string, string]> = [
      ['sd_xl_base_1.0.safetensors', 'checkpoints'],
      ['RealESRGAN_x4plus.pth', 'upscale_models'],
      ['umt5_xxl_fp8_e4m3fn_scaled.safetensors', 'text_encoders'],
      ['wan2.1_i2v_480p_14B_fp8_e4m3fn.safetensors', 'diffusion_models'],
      ['wan_2.1_vae.safetensors', 'vae'],
      ['clip_vision_h.safetensors', 'clip_vision'],
    ];
    const byFile = new Map(catalogEntries(catalogs.models).map((hit) => [hit.entry.file, hit.entry]));
    for (const [file, dest] of required) expect(byFile.get(file)?.dest, file).toBe(dest);
  });

  it('stores hashes only as 64 lower-case hex characters', () => {
    const hashes = [catalogs.models, catalogs.loras, catalogs.llm]
      .flatMap((catalog) => catalogEntries(catalog))
      .map((hit) => hit.entry.sha256)
      .filter((hash): hash is string => hash !== undefined);
    expect(hashes.length).toBeGreaterThan(5);
    for (const hash of hashes) expect(hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('ships LLMs from small to large, all GGUF files landing directly in llm/models', () => {
    const llms = catalogEntries(catalogs.llm).map((hit) => hit.entry);
    for (const llm of llms) {
      expect(llm.dest).toBe('.');
      expect(llm.file).toMatch(/\.gguf$/);
    }
    const sizes = llms.map((llm) => llm.size_gb);
    expect(Math.min(...sizes)).toBeLessThan(1);
    expect(Math.max(...sizes)).toBeGreaterThan(40);
  });

  it('ships WAN 2.2 LoRAs as high/low pairs and some single LoRAs that cover both stages', () => {
    const i2v = compatibleLoras(catalogs.loras, 'Wan Video 2.2 I2V-A14B');
    expect(i2v.some((pair) => pair.high !== null && pair.low !== null && !/noise/i.test(pair.name))).toBe(true);
    const roles = catalogEntries(catalogs.loras).map((hit) => hit.entry.pair_role);
    expect(roles).toContain('both');
  });

  it('resolves a download URL for every entry', () => {
    const config = { modelhubBaseUrl: 'https://hub', repohostBaseUrl: 'https://repo', modelhubApiKey: null, hubToken: null };
    for (const catalog of Object.values(catalogs)) {
      for (const { entry } of catalogEntries(catalog)) expect(() => resolveSourceUrl(entry, config)).not.toThrow();
    }
  });
});

describe('catalog schema', () => {
  it('rejects file names and folders that would escape the models directory', () => {
    for (const file of ['../x.safetensors', 'a/b.safetensors', 'a\\b.pth', '..', 'nul', 'x.safetensors ']) {
      expect(catalogEntrySchema.safeParse(entry({ file })).success, file).toBe(false);
    }
    for (const dest of ['../etc', '/abs', 'a/../../b', 'a\\b', '']) {
      expect(catalogEntrySchema.safeParse(entry({ dest })).success, dest).toBe(false);
    }
    expect(catalogEntrySchema.safeParse(entry({ repo_path: '../secret' })).success).toBe(false);
    expect(catalogEntrySchema.safeParse(entry({ dest: 'checkpoints/SDXL', repo_path: 'split_files/vae/x.safetensors' })).success).toBe(
      true,
    );
  });

  it('requires the id a source needs and stores hub ids as strings', () => {
    expect(catalogEntrySchema.safeParse(entry({ source: 'modelhub', hosted_repo: undefined })).success).toBe(false);
    expect(catalogEntrySchema.safeParse(entry({ hosted_repo: undefined })).success).toBe(false);
    const parsed = catalogEntrySchema.parse(entry({ source: 'modelhub', modelhub_version_id: 9208, modelhub_model_id: '7808' }));
    expect(parsed.modelhub_version_id).toBe('9208');
    expect(parsed.modelhub_model_id).toBe('7808');
  });

  it('keeps fields it does not know (added by other features) and defaults tags', () => {
    const parsed = catalogEntrySchema.parse({ ...entry({ tags: undefined }), trained_words: ['ohwx'] });
    expect(parsed.tags).toEqual([]);
    expect((parsed as Record<string, unknown>).trained_words).toEqual(['ohwx']);
  });

  it('rejects a catalog with the same file twice, and LLM entries outside "."', () => {
    const twice = { version: 1, date: '', categories: [{ id: 'a', name: 'A', models: [entry(), entry({ name: 'Y' })] }] };
    expect(catalogFileSchema.safeParse(twice).success).toBe(false);
    const llm = { version: 1, date: '', categories: [{ id: 'a', name: 'A', models: [entry({ file: 'm.gguf' })] }] };
    expect(llmCatalogFileSchema.safeParse(llm).success).toBe(false);
    expect(llmCatalogFileSchema.safeParse({ ...llm, categories: [{ id: 'a', name: 'A', models: [entry({ file: 'm.gguf', dest: '.' })] }] }).success).toBe(
      true,
    );
  });
});
