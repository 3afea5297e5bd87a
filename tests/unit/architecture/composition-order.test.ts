/**
 * The composition root reads top to bottom (ARCHITECTURE.md, `studio.ts`): no module is handed a
 * closure over a module built further down. Two modules that use each other meet through an
 * explicit late-bound port (`LateBound` in `server/module.ts`), bound right after the later one.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { LateBound } from '../../../server/module.js';
import { APP_ROOT } from '../../../server/config.js';

/** Each `const` of the Studio constructor that names a later `const` of it, as `user -> later`. */
function forwardUses(): string[] {
  const file = path.join(APP_ROOT, 'server', 'studio.ts');
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  let body: ts.Block | undefined;
  const find = (node: ts.Node): void => {
    if (ts.isConstructorDeclaration(node) && node.body) body = node.body;
    else ts.forEachChild(node, find);
  };
  find(source);
  if (!body) throw new Error('no constructor in server/studio.ts');
  const declared = new Map<string, number>();
  body.statements.forEach((statement, index) => {
    if (!ts.isVariableStatement(statement)) return;
    for (const decl of statement.declarationList.declarations) {
      if (ts.isIdentifier(decl.name)) declared.set(decl.name.text, index);
      else for (const element of (decl.name as ts.ObjectBindingPattern).elements) if (ts.isIdentifier(element.name)) declared.set(element.name.text, index);
    }
  });
  const out: string[] = [];
  body.statements.forEach((statement, index) => {
    const visit = (node: ts.Node): void => {
      // A property's own name (`modelhub: client`, `x.catalog`) is not a use of the const of that name.
      const parent = node.parent;
      const isPropertyName = parent !== undefined && ((ts.isPropertyAssignment(parent) && parent.name === node) || (ts.isPropertyAccessExpression(parent) && parent.name === node));
      if (ts.isIdentifier(node) && !isPropertyName) {
        const at = declared.get(node.text);
        if (at !== undefined && at > index) out.push(`${statement.getText().split('\n')[0]!.trim().slice(0, 60)} -> ${node.text}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(statement);
  });
  return out;
}

describe('the composition root', () => {
  it('finds the constructor and its modules (the scan itself works)', () => {
    expect(forwardUses).not.toThrow();
  });

  it('hands no module a closure over a module built after it', () => {
    expect(forwardUses()).toEqual([]);
  });

  it('has a late-bound port that refuses a use before it is bound, and a second binding', () => {
    const port = new LateBound<{ n: number }>('the thing');
    expect(() => port.get()).toThrow('the thing is used before it is built');
    port.bind({ n: 1 });
    expect(port.get().n).toBe(1);
    expect(() => port.bind({ n: 2 })).toThrow(/bound twice/);
  });
});
