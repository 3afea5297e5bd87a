/**
 * House rule: a comment says what it means in place. It does not cite numbered sections of
 * documents that are not in the repository (the team's conventions, the reference notes on
 * outside APIs) or numbered pitfalls nobody can look up; the machine-paths rule covers paths.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../../server/config.js';

const FOLDERS = ['server', 'main', 'preload', 'renderer/src', 'scripts'];
const SOURCE = /\.(ts|vue|js|mjs|cjs|md)$/;
/** `CONVENTIONS 6`, `external-apis §2.7`, `engine-protocol §3`, `stack-notes`, `pitfall 12`, `(§2)`. */
const STRAY = [/\bCONVENTIONS\b/, /\bexternal-apis\b/, /\bengine-protocol(\.md)?\s*§/, /\bstack-notes\b/, /\bpitfall/i, /\(§\s*\d/];

function files(dir: string): string[] {
  const full = path.join(APP_ROOT, dir);
  if (!fs.existsSync(full)) return [];
  return fs.readdirSync(full, { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : files(rel);
    return SOURCE.test(entry.name) ? [rel] : [];
  });
}

/** The lines of `text` that match a stray pattern, as `file:line: text`. */
function strayLines(file: string, text: string): string[] {
  return text.split('\n').flatMap((line, i) => (STRAY.some((p) => p.test(line)) ? [`${file}:${i + 1}: ${line.trim()}`] : []));
}

describe('stray references', () => {
  it('recognises citations of documents outside the repository', () => {
    const sample = ['// a loop with a cap (CONVENTIONS 6)', ' * the bot API (external-apis §2.7)', '// see pitfall 12', '/** frames (§2) */', '// the engine protocol types live in engine-protocol.ts'].join('\n');
    expect(strayLines('x.ts', sample).map((l) => l.split(':')[1])).toEqual(['1', '2', '3', '4']);
  });

  it('finds none in the project', () => {
    const all = FOLDERS.flatMap(files);
    expect(all.length).toBeGreaterThan(100);
    const found = all.flatMap((file) => strayLines(file, fs.readFileSync(path.join(APP_ROOT, file), 'utf8')));
    expect(found, 'say in place what the cited section says').toEqual([]);
  });
});
