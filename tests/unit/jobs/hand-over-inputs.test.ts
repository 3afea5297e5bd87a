/**
 * The inputs uploaded at hand-over are only files inside Studio's input folder by real path: a
 * link planted there (pointing at `.session_secret` or any file outside) is not sent to an engine.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { submitTo } from '../../../server/jobs/queue/hand-over.js';
import type { QueueEngine } from '../../../server/jobs/queue/queue-engine.js';
import type { QueueRow } from '../../../server/jobs/queue/queue.store.js';

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true }); });

function fakeEngine(uploaded: string[]): QueueEngine {
  const client = {
    uploadImage: async (_blob: Blob, name: string) => { uploaded.push(name); },
    submitPrompt: async () => ({ node_errors: {} }),
  };
  const monitor = { socketReady: async () => {}, track: () => {}, untrack: () => {}, release: () => {} };
  return { id: 'e1', name: 'e1', client, cancelClient: client, monitor, clientId: 'c', online: () => true, objectInfo: () => null, sharesFolders: () => false } as unknown as QueueEngine;
}

function row(images: string[]): QueueRow {
  const graph = Object.fromEntries(images.map((image, i) => [String(i + 1), { class_type: 'LoadImage', inputs: { image } }]));
  return { prompt_id: 'p1', graph, extra_data: {} } as unknown as QueueRow;
}

describe('hand-over input uploads', () => {
  it('uploads the files inside the input folder and neither a link out of it nor a name climbing out', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'handover-'));
    dirs.push(root);
    const input = path.join(root, 'input');
    fs.mkdirSync(input);
    fs.writeFileSync(path.join(root, 'secret.txt'), 'secret');
    fs.writeFileSync(path.join(input, 'cat.png'), 'png');
    fs.symlinkSync(path.join(root, 'secret.txt'), path.join(input, 'planted.png'));
    const uploaded: string[] = [];
    const result = await submitTo(fakeEngine(uploaded), row(['cat.png', 'planted.png', '../secret.txt', 'missing.png']), { inputDir: input, logger: { warn: () => {} } as never, stillQueued: () => true });
    expect(result).toEqual({ kind: 'submitted' });
    expect(uploaded).toEqual(['cat.png']);
  });
});
