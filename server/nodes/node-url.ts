/** A node package's clone URL and the folder name it becomes (spec "Install rules"). */
import { DomainError } from '../domain-error.js';

/** The package name of a clone URL, or a 400. */
export function packageNameOf(raw: unknown): { url: string; name: string } {
  if (typeof raw !== 'string' || raw.trim() === '') throw new DomainError('invalid', 'url is required (an https:// git URL)');
  const url = raw.trim();
  if (!url.startsWith('https://')) throw new DomainError('invalid', 'url must start with https://');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DomainError('invalid', `url is not a valid URL: ${url}`);
  }
  const last = parsed.pathname.split('/').filter(Boolean).pop() ?? '';
  const name = last.replace(/\.git$/, '');
  // The name becomes a folder inside custom_nodes: one safe path segment.
  if (!isPackageName(name)) throw new DomainError('invalid', `url does not end in a package name: ${url}`);
  return { url, name };
}

/** One safe folder name inside `custom_nodes`. */
export function isPackageName(name: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) && !name.endsWith('.disabled');
}
