/**
 * What `npm start` loads before Studio answers: every module reachable from `server/main.ts` by
 * static value imports is fetched, compiled and evaluated before the first line runs (ES
 * modules). The libraries only some requests need must stay behind a dynamic `import()` in the
 * function that uses them, or each start pays for them (issue "Performance": start → health).
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../../server/config.js';

/** Loaded on first use only: image processing, YAML, the chat bot library, uploads. */
const ON_FIRST_USE = ['sharp', 'yaml', 'grammy', 'multer'];

/** Specifiers of the static imports and re-exports of `file` that bring values (type-only ones are erased). */
function valueImports(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const out: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.isTypeOnly) continue;
      const bindings = clause?.namedBindings;
      const onlyTypes = clause && !clause.name && bindings && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
      if (!onlyTypes) out.push((statement.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly) {
      out.push((statement.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return out;
}

/** Package name → the server file that imports it, over the static graph from `entry`. */
function packagesLoadedAtStart(entry: string): Map<string, string> {
  const packages = new Map<string, string>();
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const spec of valueImports(file)) {
      if (spec.startsWith('.')) queue.push(path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts'));
      else if (!spec.startsWith('node:')) {
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
        if (!packages.has(name)) packages.set(name, path.relative(APP_ROOT, file));
      }
    }
  }
  return packages;
}

describe('what Studio loads at start', () => {
  it('leaves the libraries that only some requests need to their first use', () => {
    const loaded = packagesLoadedAtStart(path.join(APP_ROOT, 'server', 'main.ts'));
    // The walk itself works: the HTTP framework is a static import.
    expect(loaded.has('express')).toBe(true);
    const eager = ON_FIRST_USE.filter((name) => loaded.has(name)).map((name) => `${name} (imported by ${loaded.get(name)})`);
    expect(eager).toEqual([]);
  });
});
