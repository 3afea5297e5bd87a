/**
 * `POST /api/admin/models/import`: entries of an uploaded file in the `models.json` format are
 * added to the models catalog, tagged `imported`, into the category of the same id (created when
 * missing). A file already in the models or LoRA catalog is skipped, as is a repeat inside the
 * upload. `version` and `date` of the upload are optional: only its entries matter.
 */
import { z } from 'zod';
import { describeZodError } from '../http/errors.js';
import { DomainError } from '../domain-error.js';
import { catalogUnreadable, reloadFailed, type CatalogSet } from './catalog-set.js';
import { catalogCategorySchema, catalogEntries } from '../contracts/catalog.contract.js';
import { mergeTags } from './metadata-patch.js';

const importSchema = z.looseObject({
  version: z.number().optional(),
  date: z.string().optional(),
  categories: z.array(catalogCategorySchema),
});

/** Parse and add; 400 when the text is not a valid catalog. */
export async function importEntries(catalogs: CatalogSet, text: string): Promise<{ added: string[]; skipped: string[] }> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new DomainError('invalid', `The file is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = importSchema.safeParse(raw);
  if (!parsed.success) throw new DomainError('invalid', describeZodError(parsed.error, 'catalog file'));
  const incoming = parsed.data;
  // Both catalogs decide what is new; one that cannot be read is named rather than ignored.
  const unreadable = await reloadFailed(catalogs, ['models', 'loras']);
  if (unreadable.length > 0) throw catalogUnreadable(unreadable);
  const added: string[] = [];
  const skipped: string[] = [];
  const lorasFiles = catalogs.loras.isLoaded() ? new Set(catalogEntries(catalogs.loras.get()).map((hit) => hit.entry.file)) : new Set<string>();
  await catalogs.models.update((draft) => {
    const known = new Set([...lorasFiles, ...catalogEntries(draft).map((hit) => hit.entry.file)]);
    for (const category of incoming.categories) {
      for (const entry of category.models) {
        if (known.has(entry.file)) {
          skipped.push(entry.file);
          continue;
        }
        let target = draft.categories.find((existing) => existing.id === category.id);
        if (!target) {
          target = { id: category.id, name: category.name, models: [] };
          draft.categories.push(target);
        }
        target.models.push({ ...entry, tags: mergeTags(entry.tags, ['imported']) });
        known.add(entry.file);
        added.push(entry.file);
      }
    }
  });
  return { added, skipped };
}
