// Compiles preload/preload.ts to dist/preload/preload.cjs. A sandboxed preload must be a CommonJS
// script, while the rest of the project is ES modules, so it gets its own one-file build.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = fs.readFileSync(path.join(root, 'preload', 'preload.ts'), 'utf8');
const out = ts.transpileModule(source, {
  compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false, esModuleInterop: false },
  fileName: 'preload.ts',
});
const target = path.join(root, 'dist', 'preload', 'preload.cjs');
fs.mkdirSync(path.dirname(target), { recursive: true });
fs.writeFileSync(target, out.outputText);
console.log(`preload → ${path.relative(root, target)}`);
