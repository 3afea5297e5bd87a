/** The asset areas; what counts as an asset is `media-types.ts` (`mediaKindOf`). */

import type { AssetType } from '../contracts/assets.contract.js';

export type { AssetType };

/** `inputs` / `outputs`, or null for any other value. */
export function parseAssetType(value: unknown): AssetType | null {
  return value === 'inputs' || value === 'outputs' ? value : null;
}
