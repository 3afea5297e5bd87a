/**
 * The node-type → package map the import uses for node types the engine lacks: a small map
 * shipped in `resources/node-packages.json` (README "Imported workflows"), read once.
 */
import fs from 'node:fs/promises';
import { z } from 'zod';
import type { NodeMap } from './requirements.js';

const nodeMapSchema = z.object({ nodes: z.record(z.string(), z.object({ package: z.string().min(1), url: z.string().url() })) });

/** A loader of the map at `file`; a missing or broken file reads as an empty map. */
export function nodeMapLoader(file: string): () => Promise<NodeMap> {
  let cached: Promise<NodeMap> | null = null;
  return () => {
    cached ??= fs
      .readFile(file, 'utf8')
      .then((text) => nodeMapSchema.parse(JSON.parse(text)).nodes)
      .catch(() => ({}));
    return cached;
  };
}
