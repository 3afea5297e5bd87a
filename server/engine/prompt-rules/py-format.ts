/**
 * Python-flavoured text helpers. The engine builds its error details with Python's `str()` and
 * `repr()`, and clients show those strings verbatim, so the stand-in renders values the same way.
 */

/** Python `repr(value)` for JSON-like values. */
export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return pyNumber(value);
  if (typeof value === 'string') return quote(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).map(([k, v]) => `${quote(k)}: ${pyRepr(v)}`);
    return `{${entries.join(', ')}}`;
  }
  return quote(String(value));
}

/** Python `str(value)`: strings as they are, everything else as `repr`. */
export function pyStr(value: unknown): string {
  return typeof value === 'string' ? value : pyRepr(value);
}

function pyNumber(n: number): string {
  if (Number.isNaN(n)) return 'nan';
  if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
  return String(n);
}

function quote(s: string): string {
  const escaped = s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
  // Python prefers single quotes and switches to double quotes only to avoid escaping.
  if (escaped.includes("'") && !escaped.includes('"')) return `"${escaped}"`;
  return `'${escaped.replace(/'/g, "\\'")}'`;
}

/** Python's type name of a JSON value, for TypeError texts (`'NoneType'`, `'dict'`…). */
export function pyTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'string') return 'str';
  if (Array.isArray(value)) return 'list';
  return 'dict';
}

/** Python `bool(value)` (so the string "false" is true, exactly like the engine). */
export function pyTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

/** A traceback in the shape `traceback.format_tb` gives, pointing at the stand-in. */
export function fakeTraceback(where: string, line: string): string[] {
  return [
    `  File "standin/execution.py", line 1, in ${where}\n    ${line}\n`,
    `  File "standin/nodes.py", line 1, in ${where}\n    raise\n`,
  ];
}
