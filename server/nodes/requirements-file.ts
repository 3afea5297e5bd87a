/**
 * A node package's `requirements.txt`, read as data for the preview. pip given the file itself
 * would build whatever it names that is not a plain package from the index (`.`, a folder, a
 * `git+` or archive URL, an editable), and building runs that code (`setup.py`): a preview must
 * run nothing from the package. So only plain requirements (a name, extras, versions, a marker)
 * are handed on; anything else is refused, naming the line, before pip starts. Files it includes
 * with `-r` are read the same way, from inside the package only.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { DomainError } from '../domain-error.js';
import { isContained } from '../http/contained-path.js';

/** A plain PEP 508 requirement: name, optional extras, optional versions, optional marker; no URL. */
const PLAIN = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?\s*(?:\[[A-Za-z0-9._,\s-]*\])?\s*(?:\(?\s*(?:===|==|!=|~=|<=|>=|<|>)\s*[A-Za-z0-9.*+!_-]+\s*(?:,\s*(?:===|==|!=|~=|<=|>=|<|>)\s*[A-Za-z0-9.*+!_-]+\s*)*\)?)?\s*(?:;[^@]*)?$/;
/** Per-requirement options pip accepts that build nothing: hashes are dropped (the preview reads no files). */
const HASH_OPTION = /\s--hash[=\s]\S+/g;
const MAX_FILES = 20;
const MAX_LINES = 2000;

/** The plain requirements of `dir/requirements.txt` (and what it includes), or a refusal naming the line. */
export async function readPlainRequirements(dir: string, name: string): Promise<string[]> {
  const out: string[] = [];
  const seen = new Set<string>();
  await readFile(dir, 'requirements.txt', name, out, seen);
  return out;
}

async function readFile(dir: string, relative: string, name: string, out: string[], seen: Set<string>): Promise<void> {
  const file = path.resolve(dir, relative);
  if (!isContained(dir, file)) refuse(name, relative, `-r ${relative}`, 'includes a file outside the package');
  if (seen.has(file)) return;
  if (seen.size >= MAX_FILES) refuse(name, relative, `-r ${relative}`, `includes more than ${MAX_FILES} requirement files`);
  seen.add(file);
  const text = await fsp.readFile(file, 'utf8').catch(() => refuse(name, relative, `-r ${relative}`, 'names a file that cannot be read'));
  // A backslash at the end of a line continues it.
  const lines = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  if (lines.length > MAX_LINES) refuse(name, relative, '', `has more than ${MAX_LINES} lines`);
  for (const raw of lines) {
    const line = raw.replace(/(^|\s)#.*$/, '').replace(HASH_OPTION, '').trim();
    if (!line) continue;
    const include = /^(?:-r|--requirement)(?:\s+|=)(\S+)$/.exec(line);
    if (include) {
      await readFile(path.dirname(file), include[1]!, name, out, seen);
      continue;
    }
    if (line.startsWith('-')) refuse(name, relative, line, 'is a pip option that changes where packages come from or how they are built');
    if (!PLAIN.test(line)) refuse(name, relative, line, 'is not a plain package from the index (a path, a URL or a VCS link would have to be built, running its code)');
    out.push(line);
  }
}

function refuse(name: string, file: string, line: string, why: string): never {
  throw new DomainError('rejected', `${name}: ${file}${line ? ` line "${line.slice(0, 200)}"` : ''} ${why}, so the preview cannot show what it would install without running code from it. Nothing was run.`);
}
