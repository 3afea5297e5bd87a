/**
 * `grid.png`: a batch's cells as one labelled image. A grid puts its `x` axis across (a label over
 * each column), its `y` axis down (a label left of each row) and a third axis as pages stacked
 * below each other under a heading; a list or CSV batch is a square-ish grid labelled by row. The
 * text is SVG drawn by the image library (librsvg with the box's fonts); `gridLayout` is the one
 * layout both the drawing and its test read.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BatchAxis } from '../contracts/batches.contract.js';
import type { CellJob } from './batch.store.js';
import { cellOutputs } from './batch-files.js';

const GRID_PAD = 8;
export const LABEL_BAND = 40;
export const ROW_LABEL_WIDTH = 180;
const FONT = 'DejaVu Sans, Liberation Sans, sans-serif';
const MAX_LABEL = 26;

export interface GridLayout {
  cell: number;
  columns: number;
  rows: number;
  pages: number;
  width: number;
  height: number;
  /** Top-left of the picture of column `c`, row `r`, page `p`. */
  at(c: number, r: number, p: number): { left: number; top: number };
}

/** Which axis goes across, down and over pages (`x`, `y` indexes of `axes`; the other is pages). */
export interface GridView {
  x: number;
  y: number | null;
  page: number | null;
}

export function gridView(axes: readonly BatchAxis[], x = 0, y?: number): GridView {
  const order = [x, ...(y !== undefined ? [y] : []), ...axes.map((_, i) => i)].filter((v, i, all) => v < axes.length && all.indexOf(v) === i);
  return { x: order[0] ?? 0, y: order[1] ?? null, page: order[2] ?? null };
}

export function gridLayout(columns: number, rows: number, pages: number, cellCount: number): GridLayout {
  const cell = cellCount > 100 ? 128 : 256;
  const pageHeight = LABEL_BAND + LABEL_BAND + rows * (cell + GRID_PAD);
  const width = ROW_LABEL_WIDTH + columns * (cell + GRID_PAD) + GRID_PAD;
  return {
    cell,
    columns,
    rows,
    pages,
    width,
    height: pages * pageHeight + GRID_PAD,
    at: (c, r, p) => ({ left: ROW_LABEL_WIDTH + GRID_PAD + c * (cell + GRID_PAD), top: p * pageHeight + 2 * LABEL_BAND + r * (cell + GRID_PAD) }),
  };
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function text(x: number, y: number, value: string, size: number, anchor: 'start' | 'middle' | 'end' = 'start', weight = 'normal', max = MAX_LABEL): string {
  return `<text x="${x}" y="${y}" font-family="${FONT}" font-size="${size}" font-weight="${weight}" text-anchor="${anchor}" fill="#111">${escapeXml(clip(value, max))}</text>`;
}

/** Draw the grid of `cells` as a PNG. */
export async function renderGridPng(axes: readonly BatchAxis[], cells: readonly CellJob[], outputsDir: string, view: GridView): Promise<Buffer> {
  const { default: sharp } = await import('sharp');
  const grid = axes.length > 0;
  const size = (i: number | null) => (i === null ? 1 : axes[i]!.values.length);
  const columns = grid ? size(view.x) : Math.ceil(Math.sqrt(cells.length));
  const rows = grid ? size(view.y) : Math.ceil(cells.length / Math.max(1, columns));
  const pages = grid ? size(view.page) : 1;
  const layout = gridLayout(columns, rows, pages, cells.length);
  const svg: string[] = [];
  const place = (c: CellJob): [number, number, number] => {
    if (!grid || !c.coords) return [c.idx % columns, Math.floor(c.idx / columns), 0];
    return [c.coords[view.x]!, view.y === null ? 0 : c.coords[view.y]!, view.page === null ? 0 : c.coords[view.page]!];
  };
  for (let p = 0; p < pages; p++) {
    const top = layout.at(0, 0, p).top;
    // Which axis runs across and down, and on a page of its own the page axis's value.
    const across = grid ? `${axes[view.x]!.label} across${view.y !== null ? `, ${axes[view.y]!.label} down` : ''}` : 'rows';
    const heading = grid && view.page !== null ? `${axes[view.page]!.label}: ${axes[view.page]!.labels[p]}   (${across})` : across;
    svg.push(text(GRID_PAD, top - LABEL_BAND - 12, heading, 22, 'start', 'bold', 80));
    for (let c = 0; c < columns; c++) {
      const { left } = layout.at(c, 0, p);
      const label = grid ? `${axes[view.x]!.labels[c]}` : '';
      if (label) svg.push(text(left + layout.cell / 2, top - 12, label, 18, 'middle'));
    }
    if (grid && view.y !== null) for (let r = 0; r < rows; r++) svg.push(text(ROW_LABEL_WIDTH - 4, layout.at(0, r, p).top + layout.cell / 2 + 6, axes[view.y]!.labels[r] ?? '', 18, 'end'));
  }
  const pictures: Array<{ input: Buffer; left: number; top: number }> = [];
  for (const c of cells) {
    const [col, row, page] = place(c);
    const { left, top } = layout.at(col, row, page);
    if (!grid) svg.push(text(left + 4, top + layout.cell - 6, `row ${c.idx + 1}`, 14));
    const file = c.status === 'completed' ? cellOutputs(outputsDir, c).find((f) => /\.(png|jpe?g|webp|gif)$/i.test(f)) : undefined;
    const full = file ? path.join(outputsDir, file) : null;
    if (full && fs.existsSync(full)) {
      const input = await sharp(full).resize(layout.cell, layout.cell, { fit: 'contain', background: '#ffffff' }).png().toBuffer();
      pictures.push({ input, left, top });
    } else {
      svg.push(`<rect x="${left}" y="${top}" width="${layout.cell}" height="${layout.cell}" fill="#e6e6e6"/>`, text(left + layout.cell / 2, top + layout.cell / 2, c.status, 16, 'middle'));
    }
  }
  const overlay = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${layout.width}" height="${layout.height}">${svg.join('')}</svg>`);
  return sharp({ create: { width: layout.width, height: layout.height, channels: 3, background: '#ffffff' } })
    .composite([...pictures, { input: overlay, left: 0, top: 0 }])
    .png()
    .toBuffer();
}
