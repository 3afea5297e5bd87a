/**
 * House rule: no absolute path of one machine anywhere in the project. A test that reads a fixture
 * from such a path skips or fails on every other checkout; a comment naming one points nowhere.
 * Fixtures live in `tests/fixtures/` and are found relative to the repository.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../../server/config.js';

/** Home and user folders of a machine, and this checkout's own location (wherever it is). */
function machinePatterns(): RegExp[] {
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const patterns = [/(^|[\s'"`(=:])\/(home|Users)\/[a-z_][\w.-]*\//, /(^|[\s'"`(=:])\/root\//, /(^|[\s'"`(=:])\/work\//, /[A-Z]:\\Users\\[^\\\s]+\\(?!me\\)/];
  const checkout = APP_ROOT.split(path.sep).join('/');
  patterns.push(new RegExp(escape(checkout)), new RegExp(escape(path.dirname(checkout)) + '/'));
  const home = os.homedir();
  if (home && home !== '/') patterns.push(new RegExp(escape(home) + '/'));
  return patterns;
}

/** Folders that are built, installed or written by runs, never part of the project. */
const SKIP_DIRS = new Set(['node_modules', '.git', 'dist', 'artifacts', 'coverage', 'tmp', '.cache']);
const BINARY = /\.(png|jpe?g|webp|gif|mp4|ico|icns|gguf|zip|woff2?|log)$/i;

/** The project's text files, walked from the repository root (works without git, too). */
function projectFiles(dir = APP_ROOT): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === '.git') continue; // a worktree's .git file names where its repository is
    if (entry.isDirectory() && !SKIP_DIRS.has(entry.name)) out.push(...projectFiles(path.join(dir, entry.name)));
    else if (entry.isFile() && !BINARY.test(entry.name) && entry.name !== 'package-lock.json' && !entry.name.startsWith('.vitest-results')) {
      out.push(path.relative(APP_ROOT, path.join(dir, entry.name)));
    }
  }
  return out;
}

describe('machine paths', () => {
  it('finds none in any file of the project', () => {
    const patterns = machinePatterns();
    const files = projectFiles();
    expect(files.length).toBeGreaterThan(200);
    const found: string[] = [];
    for (const file of files) {
      const lines = fs.readFileSync(path.join(APP_ROOT, file), 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (patterns.some((p) => p.test(line))) found.push(`${file}:${i + 1}: ${line.trim().slice(0, 160)}`);
      });
    }
    expect(found, 'find these relative to the repository (fixtures in tests/fixtures/)').toEqual([]);
  });
});
