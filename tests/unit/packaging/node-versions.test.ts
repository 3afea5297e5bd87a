/**
 * Which Node runs what, said once and held: the server and the tests run on Node >= 20.19; the
 * desktop tools (Electron 45, electron-builder 26) need Node >= 22.12 and live in desktop/, out of
 * the server's install. Every package the server's install brings must accept Node 20.19, so
 * `npm install` prints no "unsupported engine" warning on the Node the README names.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { builderConfig, ROOT } from '../../helpers/packaging.js';

interface PackageJson {
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}
/** npm's own range rules (semver); loaded untyped: this test needs two functions of it. */
const semver = createRequire(import.meta.url)('semver') as {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
};
const readJson = <T>(rel: string): T => JSON.parse(fs.readFileSync(path.join(ROOT, rel), 'utf8')) as T;
const SERVER_NODE = '20.19.0';
const DESKTOP_NODE = '22.12.0';

describe('Node versions', () => {
  const root = readJson<PackageJson>('package.json');
  const desktop = readJson<PackageJson>('desktop/package.json');

  it('declares them in engines: the server on 20.19+, the desktop tools on 22.12+', () => {
    expect(semver.minVersion(root.engines?.node ?? '')?.version).toBe(SERVER_NODE);
    expect(semver.minVersion(desktop.engines?.node ?? '')?.version).toBe(DESKTOP_NODE);
  });

  it("keeps Electron and electron-builder out of the server's install", () => {
    const serverDeps = { ...root.dependencies, ...root.devDependencies, ...root.optionalDependencies };
    expect(Object.keys(serverDeps).filter((name) => name === 'electron' || name === 'electron-builder' || name.startsWith('@electron/'))).toEqual([]);
    expect(desktop.devDependencies).toMatchObject({ electron: expect.any(String), 'electron-builder': expect.any(String) });
    // electron-builder cannot read Electron's version from the app's package.json: the config says it.
    expect(builderConfig().electronVersion).toBe(desktop.devDependencies?.electron);
  });

  it('installs only packages that accept Node 20.19 (no engine warnings for the server)', () => {
    const lock = readJson<{ packages: Record<string, { engines?: { node?: string } | string[] }> }>('package-lock.json');
    const refuse = Object.entries(lock.packages)
      .filter(([name]) => name !== '')
      .map(([name, entry]) => ({ name, node: Array.isArray(entry.engines) ? undefined : entry.engines?.node }))
      .filter(({ node }) => node !== undefined && !semver.satisfies(SERVER_NODE, node))
      .map(({ name, node }) => `${name} wants node ${node}`);
    expect(refuse).toEqual([]);
  });

  it('says them in the README', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('Node ≥ 20.19');
    expect(readme).toContain('Node ≥ 22.12');
  });
});
