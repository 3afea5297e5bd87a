/**
 * A batch's files: each cell's outputs (its job folder's `final/` files), the CSV that maps every
 * row or cell to its job and files (`map.csv`), and all cells' outputs as one streamed ZIP
 * (`outputs.zip`, the one ZIP writer; each cell a folder, `map.csv` beside them).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { isStoredInZip } from '../media-types.js';
import { writeZip, type ZipDataEntry, type ZipFileEntry } from '../zip-writer.js';
import type { BatchRow, CellJob } from './batch.store.js';

/** A cell's output files, as paths under the output directory (`<job folder>/final/<name>`). */
export function cellOutputs(outputsDir: string, cell: Pick<CellJob, 'output_dir' | 'output'>): string[] {
  if (cell.output_dir) {
    const final = path.join(outputsDir, cell.output_dir, 'final');
    try {
      const names = fs
        .readdirSync(final, { withFileTypes: true })
        .filter((d) => d.isFile() && !d.name.startsWith('.'))
        .map((d) => d.name)
        .sort();
      if (names.length) return names.map((n) => `${cell.output_dir}/final/${n}`);
    } catch {
      // No final folder (deleted, or the outputs went elsewhere): the record's output, if any.
    }
  }
  const out = cell.output;
  return out ? [out.subfolder ? `${out.subfolder}/${out.filename}` : out.filename] : [];
}

/** What a value is called in a label or a CSV field. */
export function valueText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'object' && v !== null ? `${(v as { name?: string }).name ?? ''}:${(v as { strength?: number }).strength ?? 1}` : String(v))).join(', ');
  return JSON.stringify(value);
}

function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The keys a batch's cells set, in the order they first appear (a grid: its axes). */
function keysOf(batch: BatchRow, cells: readonly CellJob[]): string[] {
  if (batch.axes.length) return batch.axes.map((a) => a.input);
  const keys = new Set<string>();
  for (const c of cells) for (const k of Object.keys(c.values)) keys.add(k);
  return [...keys];
}

/** `map.csv`: one line per cell: its number, its values, its job, its status and its files (`;`-separated). */
export function mapCsv(batch: BatchRow, cells: readonly CellJob[], outputsDir: string): string {
  const keys = keysOf(batch, cells);
  const lines = [['cell', ...keys, 'prompt_id', 'status', 'files'].map(csvField).join(',')];
  for (const c of cells) {
    const labels = batch.axes.length && c.coords ? batch.axes.map((a, i) => a.labels[c.coords![i]!] ?? '') : keys.map((k) => (k in c.values ? valueText(c.values[k]) : ''));
    const files = c.status === 'completed' ? cellOutputs(outputsDir, c) : [];
    lines.push([String(c.idx + 1), ...labels, c.prompt_id, c.status, files.join(';')].map(csvField).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** Stream every cell's outputs (`cell-0001/<file>`) and `map.csv` as one ZIP into `out`. */
export async function writeBatchZip(batch: BatchRow, cells: readonly CellJob[], outputsDir: string, out: Writable, signal?: AbortSignal): Promise<void> {
  const width = Math.max(4, String(cells.length).length);
  const entries: Array<ZipFileEntry | ZipDataEntry> = [{ name: 'map.csv', bytes: Buffer.from(mapCsv(batch, cells, outputsDir)) }];
  for (const c of cells) {
    if (c.status !== 'completed') continue;
    for (const rel of cellOutputs(outputsDir, c)) {
      const file = path.join(outputsDir, rel);
      if (fs.existsSync(file)) entries.push({ file, name: `cell-${String(c.idx + 1).padStart(width, '0')}/${path.basename(rel)}`, store: isStoredInZip(rel) });
    }
  }
  await writeZip(entries, out, { signal });
}
