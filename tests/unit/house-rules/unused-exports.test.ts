/**
 * House rule: every name exported from server/, main/, preload/ and renderer/src/ is imported by
 * some file of the project (the app, its tests, its scripts and config). An export nothing imports
 * is dead code (delete it) or a name only its own file uses (drop the `export`). The one exception
 * is a type declared in a file that uses it: it documents what the file's exports take and give.
 * Drawn from the TypeScript compiler's syntax trees: named and default imports, `import * as`,
 * re-exports, `import()` and `vi.mock`. `.vue` components count as used when a file imports them;
 * only their script's exports are checked.
 */
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../../server/config.js';

/** Where exports are checked. */
const CHECKED = ['server', 'main', 'preload', 'renderer/src'];
/** Where imports are looked for: the checked folders and everything that uses them. */
const IMPORTERS = [...CHECKED, 'tests', 'scripts', 'renderer/vite.config.ts', 'vitest.config.ts', 'vitest.e2e.config.ts', 'vitest.engine.config.ts', 'eslint.config.js'];

/**
 * Names used from outside the project, so no import of them exists here: `file#name`. Keep this
 * short and say who uses each. (None today: the entry files, `server/main.ts`, `main/main.ts`,
 * `preload/*.ts`, `renderer/src/main.ts`, export nothing.)
 */
const ENTRY_POINTS = new Set<string>([]);

const SOURCE = /\.(ts|mts|js|mjs|vue)$/;

/** A file or folder another test wrote and removed meanwhile (a scratch folder under tests/) reads as empty. */
function readOrEmpty(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function entriesOrNone(dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function walk(root: string, rel: string, out: string[]): void {
  const full = path.join(root, rel);
  if (!fs.existsSync(full)) return;
  if (!fs.statSync(full, { throwIfNoEntry: false })?.isDirectory()) {
    out.push(rel);
    return;
  }
  for (const entry of entriesOrNone(full)) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const child = `${rel}/${entry.name}`;
    if (entry.isDirectory()) walk(root, child, out);
    else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(child);
  }
}

function parse(root: string, file: string): ts.SourceFile {
  let text = readOrEmpty(path.join(root, file));
  if (file.endsWith('.vue')) text = [...text.matchAll(/<script[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]).join('\n');
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

/** The project file a relative specifier names (`./x.js` is `./x.ts`; the renderer leaves extensions off). */
function resolve(root: string, from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  const stem = base.replace(/\.(js|mjs)$/, '');
  for (const candidate of [base, `${stem}.ts`, `${stem}.mts`, `${base}.ts`, `${base}.vue`, `${base}/index.ts`]) {
    if (fs.existsSync(path.join(root, candidate)) && fs.statSync(path.join(root, candidate)).isFile()) return candidate;
  }
  return null;
}

function hasExport(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
}

function isDefault(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
}

interface Exported {
  name: string;
  /** An interface or type alias declared in this file (not a re-export of another file's type). */
  localType: boolean;
}

/** The names `source` exports itself (re-exports with a `from` are followed as uses instead). */
function exportsOf(source: ts.SourceFile): Exported[] {
  const names: Exported[] = [];
  const imported = new Set<string>();
  for (const statement of source.statements) {
    const bindings = ts.isImportDeclaration(statement) ? statement.importClause?.namedBindings : undefined;
    if (bindings && ts.isNamedImports(bindings)) for (const element of bindings.elements) imported.add(element.name.text);
  }
  const localTypes = new Set<string>();
  for (const statement of source.statements) {
    if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) localTypes.add(statement.name.text);
  }
  for (const statement of source.statements) {
    if (ts.isExportAssignment(statement)) names.push({ name: 'default', localType: false });
    else if (ts.isExportDeclaration(statement) && !statement.moduleSpecifier && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      for (const element of statement.exportClause.elements) {
        const local = (element.propertyName ?? element.name).text;
        names.push({ name: element.name.text, localType: localTypes.has(local) && !imported.has(local) });
      }
    } else if (hasExport(statement)) {
      if (isDefault(statement)) names.push({ name: 'default', localType: false });
      else if (ts.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations) if (ts.isIdentifier(declaration.name)) names.push({ name: declaration.name.text, localType: false });
      } else if ((ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) && statement.name) {
        names.push({ name: statement.name.text, localType: true });
      } else if ('name' in statement && statement.name && ts.isIdentifier(statement.name as ts.Node)) {
        names.push({ name: (statement.name as ts.Identifier).text, localType: false });
      }
    }
  }
  return names;
}

/** Whether `name` is used in `source` beyond its own declaration, imports and export lists. */
function usedInFile(source: ts.SourceFile, name: string): boolean {
  let used = false;
  const visit = (node: ts.Node): void => {
    if (used || ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return;
    if (ts.isIdentifier(node) && node.text === name) {
      const parent = node.parent;
      const declares = (ts.isInterfaceDeclaration(parent) || ts.isTypeAliasDeclaration(parent)) && parent.name === node;
      if (!declares) used = true;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return used;
}

/** `file#name` for each name `source` takes from another project file; `file#*` when it takes them all. */
function usesOf(root: string, file: string, source: ts.SourceFile): string[] {
  const uses: string[] = [];
  const take = (specifier: ts.Expression | undefined, names: string[]) => {
    if (!specifier || !ts.isStringLiteralLike(specifier)) return;
    const target = resolve(root, file, specifier.text);
    if (target) for (const name of names) uses.push(`${target}#${name}`);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const names: string[] = [];
      if (!clause) names.push('*');
      else {
        if (clause.name) names.push('default');
        const bindings = clause.namedBindings;
        if (bindings && ts.isNamespaceImport(bindings)) names.push('*');
        if (bindings && ts.isNamedImports(bindings)) for (const element of bindings.elements) names.push((element.propertyName ?? element.name).text);
      }
      take(node.moduleSpecifier, names);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      const clause = node.exportClause;
      const names = !clause || ts.isNamespaceExport(clause) ? ['*'] : clause.elements.map((element) => (element.propertyName ?? element.name).text);
      take(node.moduleSpecifier, names);
    } else if (ts.isCallExpression(node) && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))) {
      take(node.arguments[0], ['*']);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const qualifier = node.qualifier;
      take(node.argument.literal as ts.Expression, [qualifier ? (ts.isIdentifier(qualifier) ? qualifier.text : qualifier.left.getText()) : '*']);
    } else if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && ['mock', 'doMock'].includes(node.expression.name.text)) {
      take(node.arguments[0], ['*']);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return uses;
}

/** Exported names of the checked folders under `root` that no file imports, as `file#name`. */
function unusedExports(root: string): string[] {
  const checked: string[] = [];
  for (const folder of CHECKED) walk(root, folder, checked);
  const importers: string[] = [];
  for (const entry of IMPORTERS) walk(root, entry, importers);
  const parsed = new Map([...new Set([...checked, ...importers])].map((file) => [file, parse(root, file)] as const));
  const used = new Set<string>();
  for (const [file, source] of parsed) for (const use of usesOf(root, file, source)) used.add(use);
  const unused: string[] = [];
  for (const file of checked) {
    if (file.endsWith('.vue') || used.has(`${file}#*`)) continue;
    const source = parsed.get(file)!;
    for (const { name, localType } of exportsOf(source)) {
      const key = `${file}#${name}`;
      if (used.has(key) || ENTRY_POINTS.has(key)) continue;
      if (localType && usedInFile(source, name)) continue;
      unused.push(key);
    }
  }
  return unused.sort();
}

describe('exports', () => {
  it('finds dead exports, exports only their own file uses, and unused re-exports', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'exports-'));
    try {
      const write = (file: string, text: string) => {
        fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
        fs.writeFileSync(path.join(root, file), text);
      };
      write('server/a.ts', "export function used() {}\nexport function dead() {}\nexport const localOnly = 1;\nexport const viaTests = localOnly;\nexport interface Shape { n: number }\nexport type Gone = string;\nexport function make(): Shape { return { n: 1 }; }\n");
      write('server/b.ts', "import { used, make, type Shape } from './a.js';\nexport type { Shape };\nused(); make();\n");
      write('renderer/src/c.ts', "import { thing } from './d';\nthing();\n");
      write('renderer/src/d.ts', 'export function thing() {}\nexport default 1;\n');
      write('tests/a.test.ts', "import { viaTests } from '../server/a.js';\nvoid viaTests;\n");
      expect(unusedExports(root)).toEqual(['renderer/src/d.ts#default', 'server/a.ts#Gone', 'server/a.ts#dead', 'server/a.ts#localOnly', 'server/b.ts#Shape']);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('exports nothing that no file of the project imports', () => {
    expect(unusedExports(APP_ROOT), 'delete dead code; drop `export` from names only their own file uses').toEqual([]);
  });
});
