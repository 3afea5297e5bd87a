/**
 * Agent mode: the main Studio asks this agent to download a catalog model its engine lacks
 * (`POST /api/agent/models/download {filename, sha256}`, behind this Studio's own key). The file
 * goes through this Studio's own download queue, from its own catalog's source, and is verified
 * by SHA-256: the hash the main Studio's catalog gives must be the one this catalog records, and
 * the downloaded bytes must match it, or the part is deleted and nothing is kept. An entry without
 * a hash is refused: the main Studio could not know what it would get.
 */
import express from 'express';
import { DomainError } from '../../domain-error.js';
import { agentModelDownloadBody } from '../../contracts/engines.contract.js';
import { validate } from '../../http/errors.js';

export const AGENT_MODELS_PATH = '/api/agent/models/download';

/** This Studio's catalog, as the route needs it (the composition root passes the catalog capability's). */
export interface AgentModelCatalog {
  /** The catalog's SHA-256 of a model or LoRA file (null: none recorded), undefined when not catalogued. */
  sha256Of(file: string): string | null | undefined;
  /** Queue it in this Studio's download queue (verified against the catalog's SHA-256). */
  download(file: string): Promise<{ status: string; file: string }>;
}

/** The agent's model download route. */
export function agentModelRoutes(catalog: AgentModelCatalog): express.Router {
  const router = express.Router();
  router.post(AGENT_MODELS_PATH, async (req, res) => {
    const { filename, sha256 } = validate(agentModelDownloadBody, req.body ?? {});
    const recorded = catalog.sha256Of(filename);
    if (recorded === undefined) throw new DomainError('not_found', `Not in this agent's models or LoRA catalog: ${filename}`);
    if (recorded === null) throw new DomainError('conflict', `This agent's catalog records no SHA-256 for ${filename}: it cannot be verified, so it is not downloaded`);
    if (recorded !== sha256.toLowerCase()) {
      throw new DomainError('conflict', `This agent's catalog gives ${filename} another SHA-256 (${recorded}) than the one asked for (${sha256.toLowerCase()}): refused, nothing downloaded`);
    }
    res.json(await catalog.download(filename));
  });
  return router;
}
