/**
 * The declaration table of environment variables against what is derived from it or written
 * beside it: the README's table (every variable once, the same defaults, editability said), and
 * the defaults the settings page shows (setting each one explicitly changes nothing).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_ROOT, loadConfig } from '../../../server/config.js';
import { ENV_KEYS, ENV_VARS } from '../../../server/config/env-vars.js';

interface ReadmeRow {
  keys: string[];
  defaultCell: string;
  meaning: string;
}

/** The rows of the table in the README's "Configuration" section. */
function readmeEnvRows(): ReadmeRow[] {
  const readme = fs.readFileSync(path.join(APP_ROOT, 'README.md'), 'utf8');
  const section = readme.split(/^## Configuration$/m)[1]?.split(/^## /m)[0];
  if (!section) throw new Error('README.md has no "## Configuration" section');
  const lines = section.split('\n').filter((line) => line.startsWith('|'));
  // The header and its |---| separator come first.
  return lines.slice(2).map((line) => {
    const cells = line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim());
    if (cells.length !== 3) throw new Error(`README env table row has ${cells.length} cells, not 3: ${line}`);
    const [names, defaultCell, meaning] = cells as [string, string, string];
    if (!/^`[A-Z0-9_]+`(, `[A-Z0-9_]+`)*$/.test(names)) throw new Error(`README env table row names are not \`A\`, \`B\`: ${names}`);
    return { keys: [...names.matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1]!), defaultCell, meaning };
  });
}

const spec = (key: string) => (ENV_VARS as Record<string, { default: string | null; editable?: boolean }>)[key];

describe("the README's environment-variable table", () => {
  const rows = readmeEnvRows();

  it('lists every declared variable exactly once, and nothing else', () => {
    const listed = rows.flatMap((row) => row.keys);
    expect(listed.filter((key, i) => listed.indexOf(key) !== i), 'listed twice').toEqual([]);
    expect(listed.filter((key) => !spec(key)), 'in the README but not declared in server/config/env-vars.ts').toEqual([]);
    expect(ENV_KEYS.filter((key) => !listed.includes(key)), 'declared in server/config/env-vars.ts but missing from the README').toEqual([]);
  });

  it("gives each variable its declared default (`code` for a value, plain words for none)", () => {
    for (const row of rows) {
      const written = [...row.defaultCell.matchAll(/`([^`]*)`/g)].map((m) => m[1]);
      const declared = row.keys.map((key) => spec(key)?.default ?? null).filter((value) => value !== null);
      expect(written, `default of ${row.keys.join(', ')}`).toEqual(declared);
    }
  });

  it('says "editable at runtime" of exactly the editable variables', () => {
    for (const row of rows) {
      const editable = row.keys.some((key) => spec(key)?.editable === true);
      expect(/editable at runtime/.test(row.meaning), `meaning of ${row.keys.join(', ')}`).toBe(editable);
    }
  });
});

describe('declared defaults', () => {
  it('are what applies when a variable is unset: setting each to its default changes no config value', async () => {
    const base = { STUDIO_DIR: '/tmp/studio-env-defaults' };
    const explicit: Record<string, string> = { ...base };
    for (const key of ENV_KEYS) {
      const value = spec(key)!.default;
      if (value !== null && key !== 'STUDIO_DIR') explicit[key] = value;
    }
    const noEngine = { probeEngine: async () => false };
    const unset = await loadConfig(base, noEngine);
    const set = await loadConfig(explicit, noEngine);
    // Only the copies of the environment differ: they hold the variables given.
    expect({ ...set, reportedEnv: null, childEnv: null }).toEqual({ ...unset, reportedEnv: null, childEnv: null });
    expect(Object.keys(set.reportedEnv).sort()).toEqual(Object.keys(explicit).sort());
  });
});

describe('loadConfig', () => {
  it('uses every declared variable (a declared one it never reads would show on the settings page and do nothing)', () => {
    const source = fs.readFileSync(path.join(APP_ROOT, 'server', 'config.ts'), 'utf8');
    expect(ENV_KEYS.filter((key) => !new RegExp(`\\bv\\.${key}\\b`).test(source))).toEqual([]);
  });
});
