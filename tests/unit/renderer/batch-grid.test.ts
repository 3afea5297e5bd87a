/**
 * The batch panel's axis text and the Batch page's arrangement (issue 45): `5, 7, 9`, `4-12 step 2`,
 * `S/R: cat, dog, fox` and choices one a line become the wire's values with their count; a grid's
 * cells land under the right labels whichever axes go across, down and over pages.
 */
import { describe, expect, it } from 'vitest';
import { arrange, cellCount, csvHeader, etaText, parseAxis, promptRows } from '../../../renderer/src/lib/batch-grid.js';
import type { BatchAxis, BatchCell } from '../../../server/contracts/batches.contract.js';
import type { ManifestInput } from '../../../renderer/src/api/types.js';

const num = { id: 'cfg', type: 'float' } as ManifestInput;
const text = { id: 'positive', type: 'text' } as ManifestInput;

describe('parseAxis', () => {
  it('reads lists, ranges, search-and-replace and choices', () => {
    expect(parseAxis(num, '5, 7, 9')).toEqual({ values: [5, 7, 9], count: 3 });
    expect(parseAxis(num, '4-12 step 2')).toEqual({ values: { from: 4, to: 12, step: 2 }, count: 5 });
    expect(parseAxis(text, 'S/R: cat, dog, fox')).toEqual({ values: { replace: 'cat', with: ['cat', 'dog', 'fox'] }, count: 3 });
    expect(parseAxis(text, 'a red fox, at dawn\na blue jay')).toEqual({ values: ['a red fox, at dawn', 'a blue jay'], count: 2 });
    expect(parseAxis(num, '5, x')).toEqual({ error: 'not all of them are numbers' });
    expect(parseAxis(undefined, '1')).toEqual({ error: 'choose an input' });
    expect(cellCount([3, 3, 2])).toBe(18);
  });

  it('makes prompt rows and reads a CSV header', () => {
    expect(promptRows('positive', 'one\n\n two \n')).toEqual([{ positive: 'one' }, { positive: 'two' }]);
    expect(csvHeader('\uFEFF"prompt",steps\r\nx,1')).toEqual(['prompt', 'steps']);
    expect(etaText(3700)).toBe('1 h 2 min');
  });
});

describe('arrange', () => {
  const axes: BatchAxis[] = [
    { input: 'cfg', label: 'CFG', values: [5, 7, 9], labels: ['5', '7', '9'] },
    { input: 'sampler', label: 'Sampler', values: ['euler', 'ddim'], labels: ['euler', 'ddim'] },
  ];
  const cells: BatchCell[] = [];
  for (let s = 0; s < 2; s++) for (let c = 0; c < 3; c++) cells.push({ index: s * 3 + c, values: {}, coords: [c, s], prompt_id: `p${c}${s}`, status: 'completed', engine_id: null, outputs: [], output_dir: null });

  it('puts each cell under its labels, and moves it when the axes swap', () => {
    const [page] = arrange(axes, cells, 0, 1, null);
    expect(page!.columns).toEqual(['5', '7', '9']);
    expect(page!.rows.map((r) => r.label)).toEqual(['euler', 'ddim']);
    expect(page!.rows[1]!.cells[2]!.prompt_id).toBe('p21');
    const [swapped] = arrange(axes, cells, 1, 0, null);
    expect(swapped!.columns).toEqual(['euler', 'ddim']);
    expect(swapped!.rows[2]!.cells[1]!.prompt_id).toBe('p21');
    const pages = arrange(axes, cells, 0, null, 1);
    expect(pages.map((p) => p.label)).toEqual(['Sampler: euler', 'Sampler: ddim']);
  });
});
