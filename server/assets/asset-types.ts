/** The asset areas; what counts as an asset is `media-types.ts` (`mediaKindOf`). */

/** The two asset areas: engine inputs and job outputs. */
export type AssetType = 'inputs' | 'outputs';

/** `inputs` / `outputs`, or null for any other value. */
export function parseAssetType(value: unknown): AssetType | null {
  return value === 'inputs' || value === 'outputs' ? value : null;
}
