import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { APP_ROOT, loadConfig } from '../../../server/config.js';
import { engineMessage, EngineProcess, type EngineStatus } from '../../../server/engine/engine-process.js';
import { silentLogger } from '../../../server/logging.js';
import { freePort } from '../../helpers/ports.js';
import { isAlive } from '../../helpers/process-state.js';
import { until } from '../../helpers/studio-ws.js';

const CHILDREN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/children');
const STANDIN_MAIN = path.join(APP_ROOT, 'server', 'standin', 'main.ts');
const posixOnly = process.platform === 'win32' ? it.skip : it;

let tmp: string;
const engines: EngineProcess[] = [];
const servers: http.Server[] = [];

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
});

afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.stop()));
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});

function track(engine: EngineProcess): EngineStatus[] {
  engines.push(engine);
  const statuses: EngineStatus[] = [];
  engine.onStateChange((s) => {
    if (statuses.at(-1) !== s.status) statuses.push(s.status);
  });
  return statuses;
}

describe('EngineProcess, external mode', () => {
  it('watches an engine it does not own: running, then unreachable when it goes away', async () => {
    const fake = http.createServer((req, res) => {
      res.writeHead(req.url === '/system_stats' ? 200 : 404, { 'content-type': 'application/json' });
      res.end('{"system":{},"devices":[]}');
    });
    servers.push(fake);
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    const port = (fake.address() as net.AddressInfo).port;
    const config = await loadConfig(
      { STUDIO_DIR: tmp, ENGINE_MODE: 'external', ENGINE_PORT: String(port) },
      { probeEngine: async () => false },
    );
    const engine = new EngineProcess({ config, logger: silentLogger, externalProbeIntervalMs: 50 });
    const statuses = track(engine);
    expect(engine.url).toBe(`http://127.0.0.1:${port}`);

    await engine.start();
    expect(engine.state).toMatchObject({ mode: 'external', status: 'running', pid: null, lastError: null });

    fake.closeAllConnections();
    await new Promise((resolve) => fake.close(resolve));
    // A probe in flight as the server closes ends with the socket cut (UND_ERR_SOCKET); the next
    // ones find nothing listening. Wait for that, the settled state, rather than the first error.
    await until(() => engine.state.status === 'unreachable' && /ECONNREFUSED/.test(engine.state.lastError ?? ''), 'unreachable, refused');
    expect(engine.state.lastError).toContain(`http://127.0.0.1:${port}/system_stats`);

    await engine.stop();
    expect(statuses).toEqual(['starting', 'running', 'unreachable', 'stopped']);
    expect(engine.state.status).toBe('stopped');
  });

  it('does not throw when the engine is unreachable from the start', async () => {
    const port = await freePort();
    const config = await loadConfig(
      { STUDIO_DIR: tmp, ENGINE_MODE: 'external', ENGINE_PORT: String(port) },
      { probeEngine: async () => false },
    );
    const engine = new EngineProcess({ config, logger: silentLogger, externalProbeIntervalMs: 50 });
    track(engine);
    await engine.start();
    expect(engine.state.status).toBe('unreachable');
  });
});

describe('EngineProcess, managed mode', () => {
  posixOnly('runs <python> main.py with the exact flags, writes the model paths YAML and logs output', async () => {
    const port = await freePort();
    const engineDir = path.join(tmp, 'engine-src');
    fs.mkdirSync(engineDir);
    fs.writeFileSync(path.join(engineDir, 'main.py'), '# the real engine would be here\n');
    const record = path.join(tmp, 'record.json');
    // A stand-in `python`: runs the fake engine with exactly the arguments it was given.
    const python = path.join(tmp, 'python');
    fs.writeFileSync(
      python,
      `#!/bin/sh\nFAKE_ENGINE_RECORD='${record}' exec '${process.execPath}' '${path.join(CHILDREN, 'fake-engine.mjs')}' "$@"\n`,
      { mode: 0o755 },
    );
    const studioDir = path.join(tmp, 'studio');
    const config = await loadConfig(
      { STUDIO_DIR: studioDir, ENGINE_MODE: 'managed', ENGINE_DIR: engineDir, ENGINE_PYTHON: python, ENGINE_PORT: String(port) },
      { probeEngine: async () => false },
    );
    const engine = new EngineProcess({
      config,
      logger: silentLogger,
      supervisorOverrides: { healthIntervalMs: 25, backoffBaseMs: 50, stopTimeoutMs: 2000 },
    });
    const statuses = track(engine);

    await engine.start();
    expect(engine.state).toMatchObject({ mode: 'managed', status: 'running', restarts: 0, url: `http://127.0.0.1:${port}` });
    const seen = JSON.parse(fs.readFileSync(record, 'utf8')) as { argv: string[]; cwd: string };
    expect(seen.argv).toEqual([
      'main.py',
      '--listen', '127.0.0.1',
      '--port', String(port),
      '--input-directory', path.join(studioDir, 'assets', 'input'),
      '--output-directory', path.join(studioDir, 'assets', 'output'),
      '--temp-directory', path.join(studioDir, 'engine', 'temp'),
      '--extra-model-paths-config', path.join(studioDir, 'engine', 'extra_model_paths.yaml'),
      '--disable-auto-launch',
      '--preview-method',
      'auto',
    ]);
    expect(fs.realpathSync(seen.cwd)).toBe(fs.realpathSync(engineDir));

    const yaml = YAML.parse(fs.readFileSync(path.join(studioDir, 'engine', 'extra_model_paths.yaml'), 'utf8')) as {
      studio: Record<string, unknown>;
    };
    expect(yaml.studio).toMatchObject({ base_path: path.join(studioDir, 'models'), is_default: true, loras: 'loras' });

    // A crash is restarted by the supervisor and shows in the state.
    const firstPid = engine.state.pid!;
    process.kill(firstPid, 'SIGKILL');
    await until(() => engine.state.restarts === 1 && engine.state.status === 'running', 'restart');
    expect(engine.state.lastError).toBe('engine killed by SIGKILL');
    const secondPid = engine.state.pid!;
    expect(secondPid).not.toBe(firstPid);

    await engine.stop();
    expect(isAlive(secondPid)).toBe(false);
    expect(statuses).toEqual(['starting', 'running', 'restarting', 'starting', 'running', 'stopping', 'stopped']);
    const log = fs.readFileSync(path.join(studioDir, 'logs', 'engine.log'), 'utf8');
    expect(log).toContain(`[out] To see the GUI go to: http://127.0.0.1:${port}`);
  });

  posixOnly('adds --cpu by itself when the engine Python has no CUDA, and says so; leaves a device flag the user chose', async () => {
    const engineDir = path.join(tmp, 'engine-src');
    fs.mkdirSync(engineDir);
    const record = path.join(tmp, 'record.json');
    const python = path.join(tmp, 'python');
    fs.writeFileSync(
      python,
      `#!/bin/sh\nFAKE_ENGINE_CUDA=False FAKE_ENGINE_RECORD='${record}' exec '${process.execPath}' '${path.join(CHILDREN, 'fake-engine.mjs')}' "$@"\n`,
      { mode: 0o755 },
    );
    const lines: string[] = [];
    const logger = { ...silentLogger, info: (m: string) => lines.push(m) };
    for (const [extra, expectCpu] of [[undefined, true], ['--lowvram', false]] as const) {
      const config = await loadConfig(
        { STUDIO_DIR: path.join(tmp, 'studio'), ENGINE_MODE: 'managed', ENGINE_DIR: engineDir, ENGINE_PYTHON: python, ENGINE_PORT: String(await freePort()), ...(extra ? { ENGINE_ARGS: extra } : {}) },
        { probeEngine: async () => false },
      );
      const engine = new EngineProcess({ config, logger, supervisorOverrides: { healthIntervalMs: 25, stopTimeoutMs: 2000 } });
      await engine.start();
      const argv = (JSON.parse(fs.readFileSync(record, 'utf8')) as { argv: string[] }).argv;
      expect(argv.includes('--cpu'), String(extra)).toBe(expectCpu);
      await engine.stop();
    }
    expect(lines.filter((l) => /no CUDA .* --cpu/.test(l))).toHaveLength(1);
  });

  posixOnly('shows why a managed engine crashed at start: its last error lines in the UI message', async () => {
    const engineDir = path.join(tmp, 'engine-src');
    fs.mkdirSync(engineDir);
    const python = path.join(tmp, 'python');
    fs.writeFileSync(python, '#!/bin/sh\n[ "$1" = -c ] && exit 1\necho "Traceback (most recent call last):" >&2\necho "AssertionError: Torch not compiled with CUDA enabled" >&2\nexit 1\n', { mode: 0o755 });
    const config = await loadConfig(
      { STUDIO_DIR: path.join(tmp, 'studio'), ENGINE_MODE: 'managed', ENGINE_DIR: engineDir, ENGINE_PYTHON: python, ENGINE_PORT: String(await freePort()) },
      { probeEngine: async () => false },
    );
    const engine = new EngineProcess({ config, logger: silentLogger, supervisorOverrides: { maxRestarts: 0, healthIntervalMs: 25 } });
    track(engine);
    await expect(engine.start()).rejects.toThrow();
    const message = engineMessage(engine.state);
    expect(message.status).toBe('crashed');
    expect(message.errorLines.join('\n')).toMatch(/Torch not compiled with CUDA enabled/);
    expect(engineMessage({ ...engine.state, status: 'running' }).errorLines).toEqual([]);
  });

  it('rejects start() and shows crashed when the python binary does not exist', async () => {
    const engineDir = path.join(tmp, 'engine-src');
    fs.mkdirSync(engineDir);
    const config = await loadConfig(
      {
        STUDIO_DIR: path.join(tmp, 'studio'),
        ENGINE_MODE: 'managed',
        ENGINE_DIR: engineDir,
        ENGINE_PYTHON: path.join(tmp, 'no-python'),
        ENGINE_PORT: String(await freePort()),
      },
      { probeEngine: async () => false },
    );
    const engine = new EngineProcess({ config, logger: silentLogger, supervisorOverrides: { maxRestarts: 0 } });
    track(engine);
    await expect(engine.start()).rejects.toThrow(/engine could not start: .*ENOENT/);
    expect(engine.state).toMatchObject({ status: 'crashed', pid: null });
  });
});

describe('EngineProcess, standin mode', () => {
  it.skipIf(!fs.existsSync(STANDIN_MAIN))('starts the real stand-in and stops it leaving no process behind', async () => {
    const port = await freePort();
    const config = await loadConfig(
      { STUDIO_DIR: tmp, ENGINE_MODE: 'standin', ENGINE_PORT: String(port) },
      { probeEngine: async () => false },
    );
    const engine = new EngineProcess({ config, logger: silentLogger, supervisorOverrides: { healthIntervalMs: 50 } });
    track(engine);
    await engine.start();
    expect(engine.state).toMatchObject({ mode: 'standin', status: 'running' });
    const pid = engine.state.pid!;
    const res = await fetch(`${engine.url}/system_stats`);
    expect(res.status).toBe(200);

    await engine.stop();
    expect(engine.state.status).toBe('stopped');
    expect(isAlive(pid)).toBe(false);
    await expect(fetch(`${engine.url}/system_stats`)).rejects.toThrow();
    const log = fs.readFileSync(path.join(tmp, 'logs', 'engine.log'), 'utf8');
    expect(log).toContain(`Stand-in engine listening on http://127.0.0.1:${port}`);
  });
});
