/**
 * A batch request → its cells, each the base params with its own values, every value checked
 * against the form's input (`coerceParam`, the runner's own rule) before anything is queued: a
 * bad one is a 400 naming the axis, the row or the column. Pure: no I/O.
 */
import crypto from 'node:crypto';
import { DomainError } from '../domain-error.js';
import type { ManifestInput } from '../contracts/workflows.contract.js';
import type { BatchAxis, BatchAxisInput, BatchCreateBody } from '../contracts/batches.contract.js';
import { coerceParam, type WorkflowParams } from '../workflows/params.js';
import { parseCsv } from './csv-text.js';
import { valueText } from './batch-files.js';

/** One cell before it is a job: the values that differ from the base, and its place in the grid. */
export interface PlannedCell {
  values: Record<string, unknown>;
  coords: number[] | null;
  params: WorkflowParams;
}

export interface BatchPlan {
  axes: BatchAxis[];
  cells: PlannedCell[];
}

/** `loras[0].strength`: the weight of one LoRA of a `loras` input. */
const LORA_WEIGHT = /^([A-Za-z0-9_-]+)\[(\d+)\]\.strength$/;
/** Most values one range may make (the cell cap comes on top). */
const MAX_RANGE_VALUES = 10_000;

/**
 * Cells of `body` over `inputs` with `base` params. Seed inputs left random (-1) get one resolved
 * seed shared by every cell, so cells differ only by their values (a seed axis varies its own).
 */
export function planBatch(inputs: readonly ManifestInput[], base: WorkflowParams, body: BatchCreateBody, maxCells: number): BatchPlan {
  const targets = new Set<string>();
  let axes: BatchAxis[] = [];
  let rows: Array<{ values: Record<string, unknown>; where: (key: string) => string }>;
  if (body.kind === 'grid') {
    axes = (body.axes ?? []).map((axis, i) => resolveAxis(inputs, base, axis, i + 1));
    const count = axes.reduce((n, a) => n * a.values.length, 1);
    if (count > maxCells) throw new DomainError('too_large', `The grid has ${count} cells; a batch may have at most ${maxCells}`);
    axes.forEach((a) => targets.add(baseId(a.input)));
    rows = [];
  } else if (body.kind === 'list') {
    rows = (body.rows ?? []).map((values, i) => ({ values, where: (key) => `row ${i + 1}, "${key}"` }));
  } else {
    rows = csvRows(inputs, body.csv ?? '', body.mapping ?? {});
  }
  if (body.kind !== 'grid' && rows.length > maxCells) throw new DomainError('too_large', `The batch has ${rows.length} rows; a batch may have at most ${maxCells}`);
  for (const row of rows) for (const key of Object.keys(row.values)) targets.add(baseId(key));
  const fixed = fixSeeds(inputs, base, targets);
  const cells: PlannedCell[] =
    body.kind === 'grid'
      ? gridCoords(axes.map((a) => a.values.length)).map((coords) => {
          const values = Object.fromEntries(axes.map((a, i) => [a.input, a.values[coords[i]!]]));
          return { values, coords, params: applyValues(inputs, fixed, values, (key) => `axis "${key}"`) };
        })
      : rows.map((row) => ({ values: row.values, coords: null, params: applyValues(inputs, fixed, row.values, row.where) }));
  return { axes, cells };
}

/** Every combination, the first axis varying fastest (columns, then rows, then pages): each axis added varies slower than those before it. */
function gridCoords(sizes: readonly number[]): number[][] {
  let out: number[][] = [[]];
  for (const size of sizes) {
    const next: number[][] = [];
    for (let v = 0; v < size; v++) for (const c of out) next.push([...c, v]);
    out = next;
  }
  return out;
}

function baseId(key: string): string {
  return LORA_WEIGHT.exec(key)?.[1] ?? key;
}

function findInput(inputs: readonly ManifestInput[], key: string, where: string): ManifestInput {
  const id = baseId(key);
  const input = inputs.find((i) => i.id === id);
  if (!input) throw new DomainError('invalid', `${where}: the form has no input "${id}" (it has ${inputs.map((i) => i.id).join(', ')})`);
  if (id !== key && input.type !== 'loras') throw new DomainError('invalid', `${where}: "${id}" is not a LoRA list`);
  return input;
}

function resolveAxis(inputs: readonly ManifestInput[], base: WorkflowParams, axis: BatchAxisInput, n: number): BatchAxis {
  const where = `axis ${n} ("${axis.input}")`;
  const input = findInput(inputs, axis.input, where);
  const label = axis.label ?? (axis.input === input.id ? (input.label ?? input.id) : axis.input);
  const spec = axis.values;
  if (Array.isArray(spec)) return { input: axis.input, label, values: spec, labels: spec.map(valueText) };
  if ('replace' in spec) {
    if (input.type !== 'text') throw new DomainError('invalid', `${where}: search-and-replace needs a text input, "${input.id}" is ${input.type}`);
    const prompt = String(base[input.id] ?? input.default ?? '');
    if (!prompt.includes(spec.replace)) throw new DomainError('invalid', `${where}: the prompt does not contain "${spec.replace}"`);
    return { input: axis.input, label, values: spec.with.map((w) => prompt.replaceAll(spec.replace, w)), labels: spec.with };
  }
  const numeric = input.type === 'int' || input.type === 'float' || input.type === 'seed' || input.id !== axis.input;
  if (!numeric) throw new DomainError('invalid', `${where}: a range needs a number input, "${input.id}" is ${input.type}`);
  const count = Math.floor((spec.to - spec.from) / spec.step + 1e-9) + 1;
  if (count < 1) throw new DomainError('invalid', `${where}: the range ${spec.from} to ${spec.to} is empty`);
  if (count > MAX_RANGE_VALUES) throw new DomainError('too_large', `${where}: the range makes ${count} values`);
  // Rounded to the step's decimals: 0.1 steps give 0.3, not 0.30000000000000004.
  const decimals = Math.min(10, Math.max(decimalsOf(spec.from), decimalsOf(spec.step)));
  const values = Array.from({ length: count }, (_, i) => Number((spec.from + i * spec.step).toFixed(decimals)));
  return { input: axis.input, label, values, labels: values.map(valueText) };
}

function decimalsOf(n: number): number {
  const text = String(n);
  return text.includes('.') ? text.length - text.indexOf('.') - 1 : 0;
}

/** Resolve -1 seeds once for the whole batch (the inputs an axis or a row sets keep theirs). */
function fixSeeds(inputs: readonly ManifestInput[], base: WorkflowParams, targets: ReadonlySet<string>): WorkflowParams {
  const fixed = { ...base };
  for (const input of inputs) {
    if (input.type !== 'seed' || targets.has(input.id)) continue;
    const raw = base[input.id] ?? input.default;
    if (raw === undefined || Number(raw) === -1) fixed[input.id] = crypto.randomInt(0, 2 ** 47);
  }
  return fixed;
}

/** `base` with `values` set, each checked against its input; a bad one names where it came from. */
function applyValues(inputs: readonly ManifestInput[], base: WorkflowParams, values: Record<string, unknown>, where: (key: string) => string): WorkflowParams {
  const params = { ...base };
  for (const [key, value] of Object.entries(values)) {
    const input = findInput(inputs, key, where(key));
    const weight = LORA_WEIGHT.exec(key);
    let next: unknown = value;
    if (weight) {
      const list = Array.isArray(params[input.id]) ? [...(params[input.id] as unknown[])] : Array.isArray(input.default) ? [...(input.default as unknown[])] : [];
      const at = Number(weight[2]);
      const item = list[at];
      if (typeof item !== 'object' || item === null) throw new DomainError('invalid', `${where(key)}: the base params have no LoRA ${at} in "${input.id}"`);
      const strength = typeof value === 'string' ? Number(value) : value;
      list[at] = { ...item, strength };
      next = list;
    }
    try {
      params[input.id] = coerceParam(input, next);
    } catch (err) {
      throw new DomainError('invalid', `${where(key)}: value ${valueText(value)}: ${(err as Error).message}`);
    }
  }
  return params;
}

/** CSV records → row values by the mapping (column → input); unmapped columns are ignored, empty fields keep the base. */
function csvRows(inputs: readonly ManifestInput[], text: string, mapping: Record<string, string>): Array<{ values: Record<string, unknown>; where: (key: string) => string }> {
  const table = parseCsv(text);
  const columns = Object.entries(mapping).map(([column, input]) => {
    const at = table.header.indexOf(column.trim());
    if (at < 0) throw new DomainError('invalid', `column "${column}": the CSV has no such column (it has ${table.header.join(', ')})`);
    findInput(inputs, input, `column "${column}"`);
    return { column, input, at };
  });
  return table.rows.map((record, i) => {
    const values: Record<string, unknown> = {};
    const columnOf = new Map<string, string>();
    for (const c of columns) {
      const field = record[c.at];
      if (field === undefined || field === '') continue;
      values[c.input] = field;
      columnOf.set(c.input, c.column);
    }
    // Spreadsheet numbering: the header is row 1.
    return { values, where: (key: string) => `row ${i + 2}, column "${columnOf.get(key) ?? key}"` };
  });
}
