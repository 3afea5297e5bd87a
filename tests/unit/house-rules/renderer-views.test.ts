/**
 * What the renderer's views and components may do, as the README says: they reach the server
 * only through the API client (`renderer/src/api/`, via a store or `useClient()`), never with
 * `fetch`, an `XMLHttpRequest`, a WebSocket of their own or a written `/api/` path.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..', '..', '..', 'renderer', 'src');

function vueFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? vueFiles(path.join(dir, e.name)) : e.name.endsWith('.vue') ? [path.join(dir, e.name)] : []));
}

const FORBIDDEN = [/\bfetch\(/, /\bXMLHttpRequest\b/, /new WebSocket\(/, /['"`]\/api\//, /\bEventSource\(/];

describe('renderer views and components', () => {
  it('reach the server only through the API client', () => {
    const files = [...vueFiles(path.join(root, 'views')), ...vueFiles(path.join(root, 'components'))];
    expect(files.length).toBeGreaterThan(10);
    const offenders = files.flatMap((file) => {
      const text = fs.readFileSync(file, 'utf8');
      return FORBIDDEN.filter((rule) => rule.test(text)).map((rule) => `${path.relative(root, file)}: ${rule.source}`);
    });
    expect(offenders).toEqual([]);
  });
});
