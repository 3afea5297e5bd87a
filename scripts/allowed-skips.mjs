// The only tests `npm test` lets skip: each needs something no machine here can have — a GPU, or
// the Electron binary (it cannot be downloaded here; its types are enough for everything else).
// Any other skipped test fails the run (scripts/test.mjs): a test that skips for a missing tool,
// fixture or package on a new machine is a test CI claims but never runs. None is listed today.
import path from 'node:path';

/**
 * An entry: the test file (from the repository root, with `/`), a RegExp on the test's full name
 * (describe titles and its own, space-separated, as Vitest's JSON report gives it), and why.
 * @type {Array<{ file: string, test: RegExp, reason: 'a GPU' | 'the Electron binary' }>}
 */
export const ALLOWED_SKIPS = [];

/** The entry allowing this skip, if any. */
export function allowedSkip(file, fullName, list = ALLOWED_SKIPS) {
  return list.find((entry) => entry.file === file && entry.test.test(fullName));
}

/**
 * The skipped (or todo) tests of a Vitest JSON report that the list does not allow, as
 * `file > full name` with the file relative to `root`.
 */
export function unlistedSkips(report, root, list = ALLOWED_SKIPS) {
  const unlisted = [];
  for (const suite of report.testResults ?? []) {
    const file = path.relative(root, suite.name).split(path.sep).join('/');
    for (const test of suite.assertionResults ?? []) {
      if (test.status === 'passed' || test.status === 'failed') continue;
      if (!allowedSkip(file, test.fullName, list)) unlisted.push(`${file} > ${test.fullName}`);
    }
  }
  return unlisted;
}
