/**
 * House rule: a zod schema declared at a module's top level in server/ is built on first use
 * (`lazySchema(() => z.…)`, server/contracts/lazy-schema.ts), not when the module loads: built at
 * load, the server's ~120 top-level schemas were ~1 400 zod objects and ~20 ms of every start
 * (issue 29), for schemas most starts never use. Judged by syntax: a top-level `const` whose value
 * is a chain that begins at `z.`.
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

/** The identifier a chain like `z.object({…}).strict().optional()` begins at. */
function chainRoot(expression: ts.Expression): ts.Expression {
  let node = expression;
  while (ts.isCallExpression(node) || ts.isPropertyAccessExpression(node) || ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isNonNullExpression(node)) node = node.expression;
  return node;
}

/** `file: name` of each top-level const built from `z.` when its module loads. */
function eagerSchemas(files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    for (const statement of source.statements) {
      if (!ts.isVariableStatement(statement)) continue;
      for (const declaration of statement.declarationList.declarations) {
        const value = declaration.initializer;
        if (!value) continue;
        const root = chainRoot(value);
        if (ts.isIdentifier(root) && root.text === 'z') found.push(`${path.relative(APP_ROOT, file).split(path.sep).join('/')}: ${declaration.name.getText(source)}`);
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
      fs.writeFileSync(file, "import { z } from 'zod';\nexport const eager = z.object({ a: z.string() }).strict();\nexport const lazy = lazySchema(() => z.string());\nfunction inside() { const fine = z.number(); return fine; }\n");
      expect(eagerSchemas([file]).map((hit) => hit.split(': ')[1])).toEqual(['eager']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
