import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { APP_ROOT, loadConfig, SHIPPED_ROOT } from '../../../server/config.js';
import { managedLaunch, MANAGED_READY_TIMEOUT_MS, standinLaunch, STANDIN_READY_TIMEOUT_MS } from '../../../server/engine/engine-launch.js';

const root = path.resolve('/data/studio');
const config = (env: NodeJS.ProcessEnv) =>
  loadConfig({ STUDIO_DIR: root, ENGINE_PORT: '9188', ...env }, { probeEngine: async () => false });

describe('engine launch', () => {
  it('runs the stand-in from TypeScript source through tsx', async () => {
    const cfg = await config({ ENGINE_MODE: 'standin', STANDIN_STEP_MS: '20' });
    const launch = standinLaunch(cfg, { execPath: '/bin/node', env: { PATH: '/usr/bin' } });
    expect(launch.command).toBe('/bin/node');
    expect(launch.args).toEqual([
      '--import', 'tsx', path.join(APP_ROOT, 'server', 'standin', 'main.ts'),
      '--port', '9188',
      '--host', '127.0.0.1',
      '--input-directory', path.join(root, 'assets', 'input'),
      '--output-directory', path.join(root, 'assets', 'output'),
      '--temp-directory', path.join(root, 'engine', 'temp'),
      '--step-ms', '20',
      '--node-ms', '50',
      '--preview-method', 'auto',
      '--extra-model-paths-config', path.join(root, 'engine', 'extra_model_paths.yaml'),
      '--resources-dir', path.join(SHIPPED_ROOT, 'resources', 'standin'),
      '--custom-nodes-dir', path.join(root, 'engine', 'custom_nodes'),
      '--python', 'python3',
      '--parent-pid', String(process.pid),
    ]);
    expect(launch.cwd).toBe(APP_ROOT);
    expect(launch.env).toEqual({ PATH: '/usr/bin', STUDIO_DIR: root, ELECTRON_RUN_AS_NODE: '1' });
    expect(launch.readyTimeoutMs).toBe(STANDIN_READY_TIMEOUT_MS);
  });

  it('runs the compiled stand-in of the app, with --object-info when set', async () => {
    const cfg = await config({ ENGINE_MODE: 'standin', STANDIN_OBJECT_INFO: '/fixtures/object_info.json' });
    const moduleUrl = pathToFileURL(path.resolve('/app/dist/server/engine/engine-launch.js')).href;
    const launch = standinLaunch(cfg, { moduleUrl, appRoot: path.resolve('/app') });
    expect(launch.args[0]).toBe(path.resolve('/app/dist/server/standin/main.js'));
    expect(launch.args).not.toContain('tsx');
    expect(launch.args.slice(-4)).toEqual(['--object-info', '/fixtures/object_info.json', '--parent-pid', String(process.pid)]);
    expect(launch.cwd).toBe(path.join(root, 'engine'));
    expect(launch.env).toEqual({ STUDIO_DIR: root, ELECTRON_RUN_AS_NODE: '1' });
  });

  it('finds the compiled stand-in from the one-file server bundle too (not beside the bundle)', async () => {
    const cfg = await config({ ENGINE_MODE: 'standin' });
    const moduleUrl = pathToFileURL(path.resolve('/app/dist/server/main.bundle.cjs')).href;
    const launch = standinLaunch(cfg, { moduleUrl, appRoot: path.resolve('/app') });
    expect(launch.args[0]).toBe(path.resolve('/app/dist/server/standin/main.js'));
  });

  it('runs the managed engine as <python> main.py inside ENGINE_DIR', async () => {
    const cfg = await config({ ENGINE_MODE: 'managed', ENGINE_DIR: '/opt/engine', ENGINE_PYTHON: '/venv/bin/python' });
    const launch = managedLaunch(cfg);
    expect(launch.command).toBe('/venv/bin/python');
    expect(launch.args).toEqual([
      'main.py',
      '--listen', '127.0.0.1',
      '--port', '9188',
      '--input-directory', path.join(root, 'assets', 'input'),
      '--output-directory', path.join(root, 'assets', 'output'),
      '--temp-directory', path.join(root, 'engine', 'temp'),
      '--extra-model-paths-config', path.join(root, 'engine', 'extra_model_paths.yaml'),
      '--disable-auto-launch',
      '--preview-method', 'auto',
    ]);
    expect(launch.cwd).toBe(path.resolve('/opt/engine'));
    expect(launch.env).toBeUndefined();
    expect(launch.readyTimeoutMs).toBe(MANAGED_READY_TIMEOUT_MS);
  });

  it('adds ENGINE_ARGS last, split shell-style, and the preview method', async () => {
    const cfg = await config({
      ENGINE_MODE: 'managed',
      ENGINE_DIR: '/opt/engine',
      ENGINE_PREVIEW_METHOD: 'taesd',
      ENGINE_ARGS: `--lowvram --cache-lru 10 --front-end-root '/srv/my front' "--listen=0.0.0.0" a\\ b`,
    });
    const args = managedLaunch(cfg).args;
    expect(args.slice(args.indexOf('--preview-method'), args.indexOf('--preview-method') + 2)).toEqual(['--preview-method', 'taesd']);
    expect(args.slice(-7)).toEqual(['--lowvram', '--cache-lru', '10', '--front-end-root', '/srv/my front', '--listen=0.0.0.0', 'a b']);
    await expect(config({ ENGINE_ARGS: "--x 'open" })).rejects.toThrow(/ENGINE_ARGS: unterminated single quote/);
    await expect(config({ ENGINE_PREVIEW_METHOD: 'fancy' })).rejects.toThrow(/ENGINE_PREVIEW_METHOD/);
  });
});
