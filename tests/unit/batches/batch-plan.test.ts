/**
 * Planning a batch (issue 45): a grid's cells are every combination of its axes (lists, ranges,
 * prompt search-and-replace, a LoRA's weight), a list or CSV one cell per row; every value is
 * checked against its input before anything is queued, a bad one named by axis, row or column;
 * past the cap is a 413; every cell carries the same resolved seed unless seed is an axis.
 */
import { describe, expect, it } from 'vitest';
import { planBatch } from '../../../server/batches/batch-plan.js';
import { parseCsv } from '../../../server/batches/csv-text.js';
import { batchCreateBody, type BatchCreateBody } from '../../../server/contracts/batches.contract.js';
import type { ManifestInput } from '../../../server/contracts/workflows.contract.js';
import { DomainError } from '../../../server/domain-error.js';

const INPUTS = [
  { id: 'positive', type: 'text', label: 'Prompt' },
  { id: 'cfg', type: 'float', label: 'CFG', min: 1, max: 20 },
  { id: 'steps', type: 'int', label: 'Steps', min: 1, max: 100 },
  { id: 'sampler', type: 'select', label: 'Sampler', options: ['euler', 'dpmpp_2m', 'ddim'] },
  { id: 'seed', type: 'seed', label: 'Seed', default: -1 },
  { id: 'loras', type: 'loras', label: 'LoRAs', default: [] },
] as unknown as ManifestInput[];

const body = (over: Record<string, unknown>): BatchCreateBody => batchCreateBody.parse({ workflow_id: 'w', ...over });
const plan = (over: Record<string, unknown>, base: Record<string, unknown> = {}, cap = 500) => planBatch(INPUTS, { positive: 'a cat on a mat', loras: [{ name: 'style.safetensors', strength: 1 }], ...base }, body(over), cap);

function failure(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (err) {
    return err as DomainError;
  }
  throw new Error('expected a failure');
}

describe('planBatch', () => {
  it('makes a 3 × 3 × 2 grid (CFG × sampler × LoRA weight), first axis fastest, one seed for all', () => {
    const p = plan({
      kind: 'grid',
      axes: [
        { input: 'cfg', values: [5, 7, 9] },
        { input: 'sampler', values: ['euler', 'dpmpp_2m', 'ddim'] },
        { input: 'loras[0].strength', values: { from: 0.5, to: 1, step: 0.5 } },
      ],
    });
    expect(p.cells).toHaveLength(18);
    expect(p.cells[0]!.coords).toEqual([0, 0, 0]);
    expect(p.cells[1]!.coords).toEqual([1, 0, 0]);
    expect(p.cells[3]!.coords).toEqual([0, 1, 0]);
    expect(p.cells[17]!.values).toEqual({ cfg: 9, sampler: 'ddim', 'loras[0].strength': 1 });
    expect(p.cells[17]!.params).toMatchObject({ cfg: 9, sampler: 'ddim', loras: [{ name: 'style.safetensors', strength: 1 }] });
    expect(p.cells[0]!.params.loras).toEqual([{ name: 'style.safetensors', strength: 0.5 }]);
    const seeds = new Set(p.cells.map((c) => c.params.seed));
    expect(seeds.size).toBe(1);
    expect(Number([...seeds][0])).toBeGreaterThanOrEqual(0);
    expect(p.axes.map((a) => a.label)).toEqual(['CFG', 'Sampler', 'loras[0].strength']);
  });

  it('varies the seed when seed is an axis', () => {
    const p = plan({ kind: 'grid', axes: [{ input: 'seed', values: [1, 2, 3] }] });
    expect(p.cells.map((c) => c.params.seed)).toEqual([1, 2, 3]);
  });

  it('expands a range without float noise, and a prompt search-and-replace', () => {
    expect(plan({ kind: 'grid', axes: [{ input: 'cfg', values: { from: 1, to: 1.3, step: 0.1 } }] }).axes[0]!.values).toEqual([1, 1.1, 1.2, 1.3]);
    expect(plan({ kind: 'grid', axes: [{ input: 'steps', values: { from: 4, to: 12, step: 2 } }] }).axes[0]!.values).toEqual([4, 6, 8, 10, 12]);
    const sr = plan({ kind: 'grid', axes: [{ input: 'positive', values: { replace: 'cat', with: ['cat', 'dog', 'fox'] } }] });
    expect(sr.cells.map((c) => c.params.positive)).toEqual(['a cat on a mat', 'a dog on a mat', 'a fox on a mat']);
    expect(sr.axes[0]!.labels).toEqual(['cat', 'dog', 'fox']);
  });

  it('names the axis, the row and the column of a bad value', () => {
    expect(failure(() => plan({ kind: 'grid', axes: [{ input: 'cfg', values: [5, 25] }] })).message).toMatch(/axis "cfg": value 25: .*above the maximum 20/);
    expect(failure(() => plan({ kind: 'grid', axes: [{ input: 'nope', values: [1] }] })).message).toMatch(/axis 1 \("nope"\): the form has no input "nope"/);
    expect(failure(() => plan({ kind: 'grid', axes: [{ input: 'sampler', values: { from: 1, to: 2, step: 1 } }] })).message).toMatch(/a range needs a number input/);
    expect(failure(() => plan({ kind: 'list', rows: [{ positive: 'x' }, { steps: 'many' }] })).message).toMatch(/^row 2, "steps": value many: .*expected an integer/);
    const csv = 'prompt,steps,notes\n"a, quoted one",20,ignored\nsecond,0,x\n';
    const err = failure(() => plan({ kind: 'csv', csv, mapping: { prompt: 'positive', steps: 'steps' } }));
    expect(err.kind).toBe('invalid');
    expect(err.message).toMatch(/^row 3, column "steps": value 0: .*below the minimum 1/);
    expect(failure(() => plan({ kind: 'csv', csv, mapping: { Prompt: 'positive' } })).message).toMatch(/column "Prompt": the CSV has no such column/);
  });

  it('maps CSV columns to inputs, ignores unmapped ones and keeps the base for empty fields', () => {
    const p = plan({ kind: 'csv', csv: 'prompt,steps,notes\r\n"a, ""quoted"" one",20,x\r\nplain,,y\r\n', mapping: { prompt: 'positive', steps: 'steps' } }, { steps: 30 });
    expect(p.cells.map((c) => [c.params.positive, c.params.steps])).toEqual([
      ['a, "quoted" one', 20],
      ['plain', 30],
    ]);
    expect(p.cells[0]!.values).toEqual({ positive: 'a, "quoted" one', steps: '20' });
  });

  it('refuses past the cap (413) before making the cells', () => {
    const err = failure(() => plan({ kind: 'grid', axes: [{ input: 'steps', values: { from: 1, to: 100, step: 1 } }, { input: 'cfg', values: [1, 2, 3, 4, 5, 6] }] }));
    expect(err.kind).toBe('too_large');
    expect(err.message).toMatch(/600 cells; a batch may have at most 500/);
    expect(failure(() => plan({ kind: 'list', rows: [{}, {}, {}] }, {}, 2)).kind).toBe('too_large');
  });

  it('parses CSV with a byte-order mark and refuses an unclosed quote', () => {
    expect(parseCsv('\uFEFFa,b\n1,2\n\n3,4')).toEqual({ header: ['a', 'b'], rows: [['1', '2'], ['3', '4']] });
    expect(() => parseCsv('a\n"open')).toThrow(/never closed/);
  });
});
