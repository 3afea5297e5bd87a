/**
 * What the LLM capability uses of the LLM catalog, handed to it by the composition root: the
 * entries (the fit estimates) and adding one (a GGUF file chosen from a repository). The LLM side
 * never imports the catalog; it gets these two functions.
 */
import { catalogOrEmpty, type CatalogSet } from './catalog-set.js';
import type { CatalogEntry } from '../contracts/catalog.contract.js';

export interface LlmCatalogAccess {
  entries(): CatalogEntry[];
  /** Add `entry` to category `category` (made when missing); false when the file is catalogued already. */
  add(entry: CatalogEntry, category: { id: string; name: string }): Promise<boolean>;
}

export function llmCatalogAccess(catalogs: CatalogSet): LlmCatalogAccess {
  return {
    entries: () => catalogOrEmpty(catalogs, 'llm').categories.flatMap((c) => c.models),
    add: (entry, category) =>
      catalogs.llm.update((draft) => {
        if (draft.categories.some((c) => c.models.some((m) => m.file === entry.file))) return false;
        let target = draft.categories.find((c) => c.id === category.id);
        if (!target) {
          target = { id: category.id, name: category.name, models: [] };
          draft.categories.push(target);
        }
        target.models.push(entry);
        return true;
      }),
  };
}
