import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CatalogEntry, CatalogFile } from '../../../server/contracts/catalog.contract.js';
import {
  diskPresence,
  entryFilePath,
  presenceSummary,
  resolveStatus,
  withLiveStatus,
} from '../../../server/catalog/model-status.js';

let root: string;
let dirs: { models: string; llmModels: string };

const entry = (file: string, dest: string, size_gb = 0.000001234): CatalogEntry => ({
  name: file,
  file,
  dest,
  size_gb,
  tags: [],
  source: 'repohost',
  hosted_repo: 'a/b',
});

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
  dirs = { models: path.join(root, 'models'), llmModels: path.join(root, 'llm', 'models') };
});

afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

describe('entryFilePath', () => {
  it('puts models under models/<dest>/ and LLM models flat under llm/models/', () => {
    expect(entryFilePath(dirs, entry('a.safetensors', 'checkpoints'), 'models')).toBe(path.join(dirs.models, 'checkpoints', 'a.safetensors'));
    expect(entryFilePath(dirs, entry('l.safetensors', 'loras'), 'loras')).toBe(path.join(dirs.models, 'loras', 'l.safetensors'));
    expect(entryFilePath(dirs, entry('m.gguf', '.'), 'llm')).toBe(path.join(dirs.llmModels, 'm.gguf'));
  });
});

describe('disk presence and live status', () => {
  const catalog: CatalogFile = {
    version: 3,
    date: '2026-01-01 00:00',
    categories: [
      {
        id: 'checkpoints',
        name: 'Checkpoints',
        models: [entry('here.safetensors', 'checkpoints'), entry('partial.safetensors', 'checkpoints'), entry('queued.safetensors', 'checkpoints'), entry('short.safetensors', 'checkpoints', 1.98)],
      },
    ],
  };

  beforeEach(() => {
    fs.mkdirSync(path.join(dirs.models, 'checkpoints'), { recursive: true });
    fs.writeFileSync(path.join(dirs.models, 'checkpoints', 'here.safetensors'), Buffer.alloc(1234));
    // An unfinished download is not the file.
    fs.writeFileSync(path.join(dirs.models, 'checkpoints', 'partial.safetensors.part'), Buffer.alloc(10));
    // 4 KB where the catalog says 1.98 GB: on disk, but not the model.
    fs.writeFileSync(path.join(dirs.models, 'checkpoints', 'short.safetensors'), Buffer.alloc(4096));
  });

  it('reports present files with their size and everything else as not downloaded', () => {
    const presence = diskPresence(dirs);
    const live = withLiveStatus(catalog, 'models', presence, (file) => (file === 'queued.safetensors' ? 'queued' : null));
    expect(live.version).toBe(3);
    expect(live.categories[0]!.models.map((m) => [m.file, m.status, m.on_disk_bytes])).toEqual([
      ['here.safetensors', 'present', 1234],
      ['partial.safetensors', 'not_downloaded', 0],
      ['queued.safetensors', 'queued', 0],
      ['short.safetensors', 'incomplete', 4096],
    ]);
    expect(presenceSummary(catalog, 'models', presence)).toEqual({ total: 4, present: 1 });
    const short = catalog.categories[0]!.models[3]!;
    expect([presence.isPresent(short, 'models'), presence.isOnDisk(short, 'models')]).toEqual([false, true]);
  });

  it('lets the queue state win, except that an old error does not hide a file that is there', () => {
    expect(resolveStatus(false, 'downloading')).toBe('downloading');
    expect(resolveStatus(true, 'queued')).toBe('queued');
    expect(resolveStatus(false, 'error')).toBe('error');
    expect(resolveStatus(true, 'error')).toBe('present');
    expect(resolveStatus(true, null)).toBe('present');
    expect(resolveStatus(false)).toBe('not_downloaded');
    expect(resolveStatus(false, 'error', true)).toBe('incomplete');
    expect(resolveStatus(false, 'downloading', true)).toBe('downloading');
  });
});
