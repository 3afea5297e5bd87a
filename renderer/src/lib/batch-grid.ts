/**
 * The batch panel's and the Batch page's logic, kept out of the components: an axis typed as text
 * (`5, 7, 9`, `4-12 step 2`, `S/R: cat, dog, fox`, choices one per line) into the wire's axis, the
 * cell count before submitting, a prompt list into rows, and a grid's cells arranged by the axes
 * chosen as columns, rows and pages.
 */
import type { BatchAxis, BatchCell } from '../../../server/contracts/batches.contract.js';
import type { ManifestInput } from '../api/types.js';

export type AxisValues = unknown[] | { from: number; to: number; step: number } | { replace: string; with: string[] };

const RANGE = /^\s*(-?\d+(?:\.\d+)?)\s*-\s*(-?\d+(?:\.\d+)?)\s*(?:step\s+(\d+(?:\.\d+)?))?\s*$/i;
const SR = /^\s*S\/R:\s*(.+)$/i;

/** An axis's text as its values for `input` (null: nothing usable yet, with the reason). */
export function parseAxis(input: ManifestInput | undefined, text: string): { values: AxisValues; count: number } | { error: string } {
  if (!input) return { error: 'choose an input' };
  const trimmed = text.trim();
  if (!trimmed) return { error: 'no values' };
  const sr = SR.exec(trimmed);
  if (sr) {
    const words = sr[1]!.split(',').map((w) => w.trim()).filter(Boolean);
    if (words.length < 1) return { error: 'S/R needs the word to replace, then the others' };
    return { values: { replace: words[0]!, with: words }, count: words.length };
  }
  const numeric = input.type === 'int' || input.type === 'float' || input.type === 'seed';
  const range = numeric ? RANGE.exec(trimmed) : null;
  if (range) {
    const from = Number(range[1]);
    const to = Number(range[2]);
    const step = range[3] ? Number(range[3]) : 1;
    if (step <= 0 || to < from) return { error: 'a range goes up from its first number' };
    return { values: { from, to, step }, count: Math.floor((to - from) / step + 1e-9) + 1 };
  }
  // One a line when there are lines (a prompt may hold commas), else comma-separated.
  const parts = trimmed.split(trimmed.includes('\n') ? '\n' : ',').map((p) => p.trim()).filter(Boolean);
  const values = numeric ? parts.map(Number) : parts;
  if (numeric && values.some((v) => Number.isNaN(v))) return { error: 'not all of them are numbers' };
  return { values, count: values.length };
}

/** How many cells axes of these lengths make. */
export function cellCount(counts: readonly number[]): number {
  return counts.length ? counts.reduce((a, b) => a * b, 1) : 0;
}

/** A list of prompts (one a line, blank lines skipped) as rows setting `inputId`. */
export function promptRows(inputId: string, text: string): Array<Record<string, string>> {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => ({ [inputId]: line }));
}

/** The header of a CSV text (its first line, quotes removed). */
export function csvHeader(text: string): string[] {
  const first = text.replace(/^\uFEFF/, '').split(/\r?\n/)[0] ?? '';
  return first.split(',').map((h) => h.trim().replace(/^"|"$/g, '')).filter(Boolean);
}

export interface GridPage {
  label: string | null;
  columns: string[];
  rows: Array<{ label: string | null; cells: Array<BatchCell | null> }>;
}

/** Cells arranged with axis `x` across, `y` down and `page` as pages (a list batch: rows of `width`). */
export function arrange(axes: readonly BatchAxis[], cells: readonly BatchCell[], x: number, y: number | null, page: number | null, width = 6): GridPage[] {
  if (!axes.length) {
    const rows: GridPage['rows'] = [];
    for (let i = 0; i < cells.length; i += width) rows.push({ label: null, cells: cells.slice(i, i + width) });
    return [{ label: null, columns: [], rows }];
  }
  const size = (i: number | null) => (i === null ? 1 : axes[i]!.values.length);
  const at = new Map<string, BatchCell>();
  for (const c of cells) if (c.coords) at.set(`${c.coords[x]}|${y === null ? 0 : c.coords[y]}|${page === null ? 0 : c.coords[page]}`, c);
  return Array.from({ length: size(page) }, (_, p) => ({
    label: page === null ? null : `${axes[page]!.label}: ${axes[page]!.labels[p]}`,
    columns: axes[x]!.labels,
    rows: Array.from({ length: size(y) }, (_, r) => ({
      label: y === null ? null : axes[y]!.labels[r]!,
      cells: Array.from({ length: size(x) }, (_, c) => at.get(`${c}|${r}|${p}`) ?? null),
    })),
  }));
}

/** `1 h 5 min`, `3 min`, `40 s`. */
export function etaText(seconds: number | null): string {
  if (seconds === null) return 'unknown yet';
  if (seconds < 60) return `${seconds} s`;
  const min = Math.round(seconds / 60);
  return min < 60 ? `${min} min` : `${Math.floor(min / 60)} h ${min % 60} min`;
}
