/**
 * House rule: the project's own documents tell the truth about its files. Every repository path
 * `README.md`, `ARCHITECTURE.md` and `tests/README.md` name in backticks exists (a moved or deleted
 * file is renamed or dropped there in the same change), and the README cites no document outside
 * the repository. Build outputs and the packaged app's layout are named but not checked.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../../server/config.js';

const DOCS = ['README.md', 'ARCHITECTURE.md', 'tests/README.md'];
const REPO_PATH = /^(server|renderer|tests|scripts|main|preload|resources|workflows|desktop)\//;
/** Made by a build or by the packager, not kept in the repository. */
const BUILT = /^(renderer\/dist|resources\/app(\.asar)?(\.unpacked)?\/?$|resources\/(workflows|resources|app)$)/;

function namedPaths(doc: string): string[] {
  const text = fs.readFileSync(path.join(APP_ROOT, doc), 'utf8');
  return [...text.matchAll(/`([^`\s]+)`/g)]
    .map((m) => m[1]!)
    .filter((t) => REPO_PATH.test(t) && !/[*<>{}]|\.\.\.|…/.test(t))
    .map((t) => t.split(':')[0]!.replace(/\/$/, ''))
    .filter((t) => !BUILT.test(t));
}

describe('documents', () => {
  it('name only files and folders that exist', () => {
    const missing = DOCS.filter((doc) => fs.existsSync(path.join(APP_ROOT, doc))).flatMap((doc) =>
      namedPaths(doc)
        .filter((p) => !fs.existsSync(path.join(APP_ROOT, p)))
        .map((p) => `${doc}: ${p}`),
    );
    expect(missing).toEqual([]);
  });

  it('the README points to no document outside the repository', () => {
    const text = fs.readFileSync(path.join(APP_ROOT, 'README.md'), 'utf8');
    expect(text.match(/\.\.\/shared\/(?!real-engine)[^\s`)]*/g) ?? []).toEqual([]);
    expect(text.match(/\bCONVENTIONS\b/g) ?? []).toEqual([]);
  });
});
