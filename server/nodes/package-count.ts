/**
 * How many node packages the engine has loaded, for the system status: counted from its node
 * schemas, and 0 while it does not run (a stopped engine is not asked, so status answers at once).
 */
import type { ObjectInfo } from '../engine/engine-graph.js';
import { groupNodePackages } from '../workflows/node-packages.js';

export async function nodePackageCount(engineStatus: () => string, objectInfo: () => Promise<ObjectInfo>): Promise<number> {
  return engineStatus() === 'running' ? groupNodePackages(await objectInfo()).length : 0;
}
