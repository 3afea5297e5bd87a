/**
 * House rule: a zod schema declared at a module's top level in server/ is built on first use
 * (`lazySchema(() => z.…)`, server/contracts/lazy-schema.ts), not when the module loads: built at
 * load, the server's ~120 top-level schemas were ~1 400 zod objects and ~20 ms of every start
 * (issue 29), for schemas most starts never use. And zod itself is set up on first use in the
 * server bundle (scripts/bundle-server.mjs): one `z.` at load sets it up at every start. Judged by
 * syntax: a `z.` in a top-level statement that is not inside a function (`lazySchema`'s is one).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../../server/config.js';

function serverFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return serverFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** True when `node` (a top-level statement's part) reads `z.…` outside any function. */
function readsZodAtLoad(node: ts.Node): boolean {
  if (ts.isFunctionLike(node) || ts.isClassDeclaration(node) || ts.isClassExpression(node)) return false;
  // Types (`z.infer<…>`) are gone at run time.
  if (ts.isTypeNode(node) || ts.isTypeAliasDeclaration(node) || ts.isInterfaceDeclaration(node)) return false;
  if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'z') return true;
  return ts.forEachChild(node, readsZodAtLoad) ?? false;
}

/** `file: name` of each top-level const (or `file: statement`) that reads `z.` when its module loads. */
function eagerSchemas(files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const where = path.relative(APP_ROOT, file).split(path.sep).join('/');
    for (const statement of source.statements) {
      if (ts.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations) {
          if (declaration.initializer && readsZodAtLoad(declaration.initializer)) found.push(`${where}: ${declaration.name.getText(source)}`);
        }
      } else if (ts.isExpressionStatement(statement) && readsZodAtLoad(statement)) {
        found.push(`${where}: ${statement.getText(source).slice(0, 40)}`);
      }
    }
  }
  return found;
}

describe('top-level schemas', () => {
  it('are built on first use, not when their module loads', () => {
    const files = serverFiles(path.join(APP_ROOT, 'server'));
    expect(files.length).toBeGreaterThan(100);
    expect(eagerSchemas(files), 'wrap them: `lazySchema(() => z.…)` (server/contracts/lazy-schema.ts)').toEqual([]);
  });

  it('finds one that is not', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-lazy-'));
    try {
      const file = path.join(dir, 'eager.ts');
      fs.writeFileSync(
        file,
        [
          "import { z } from 'zod';",
          'export const eager = z.object({ a: z.string() }).strict();',
          'const parts = { min: z.number().optional() };',
          "z.config({ jitless: true });",
          'export const lazy = lazySchema(() => z.string());',
          'const later = () => ({ min: z.number().optional() });',
          'export type Lazy = z.infer<typeof lazy>;',
          'function inside() { const fine = z.number(); return fine; }',
          '',
        ].join('\n'),
      );
      expect(eagerSchemas([file]).map((hit) => hit.slice(hit.indexOf(': ') + 2))).toEqual(['eager', 'parts', 'z.config({ jitless: true });']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
