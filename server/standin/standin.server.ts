/**
 * The stand-in engine: a fake of the engine (ComfyUI) that speaks its HTTP + WebSocket protocol, so
 * Studio runs and is tested without a GPU. Every route also answers under `/api`. See README.md.
 */
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler } from 'express';
import os from 'node:os';
import path from 'node:path';
import { HOST_REFUSED, isAllowedHost, refuse } from '../http/host-guard.js';
import { engineRefusesOrigin } from './origin-check.util.js';
import { silentLogger, type Logger } from '../logging.js';
import { engineRoutes, serverFeatures } from './engine.routes.js';
import type { EngineDirs } from '../engine/engine-paths.js';
import { fileRoutes } from './files.routes.js';
import { loadMedia, standinResourcesDir } from './media.store.js';
import { NodeCatalog } from './object-info.store.js';
import { loadCustomNodes } from './custom-nodes.loader.js';
import { FileLists, listModelFiles, type ModelFolders } from './file-lists.store.js';
import { StandinService } from './standin.service.js';
import { WsHub } from './ws.hub.js';

export interface StandinOptions {
  /** Default '127.0.0.1'. */
  host?: string;
  /** 0 picks a free port (read it back from `StandinEngine.port`). */
  port: number;
  /** Engine input directory: uploads land here, LoadImage reads here. */
  inputDir: string;
  /** Engine output directory: output nodes write here. */
  outputDir: string;
  /** PreviewImage target; default a fresh dir under os.tmpdir(). Wiped at start, like the engine's temp/. */
  tempDir?: string;
  /** Delay between the 10 progress steps of a step node; default 300. */
  stepMs?: number;
  /** Serve this object_info dump instead of the built-in node set. */
  objectInfoFile?: string | null;
  /** The engine's model folders (folder name → directories); default none, so every model list is empty. */
  modelFolders?: ModelFolders;
  /** How long a node without progress steps takes; default 5 ms (real quick nodes take a moment too). */
  nodeMs?: number;
  /** Awaited as each node starts: an in-process test holds a node until it is ready for the rest. */
  beforeNode?: (nodeId: string, promptId: string) => Promise<void>;
  /** `--preview-method` (default none, like the engine): previews for prompts that do not choose. */
  previewMethod?: string;
  /** `resources/standin/` (node list, media); default: the one beside this code. */
  resourcesDir?: string;
  /** `custom_nodes` to import with `python` (both, or neither: no packages). */
  customNodesDir?: string;
  python?: string;
  /** Extra Host names accepted besides this machine's own (STUDIO_ALLOWED_HOSTS). */
  allowedHosts?: readonly string[];
  logger?: Logger;
}

export interface StandinEngine {
  readonly port: number;
  readonly url: string;
  /** Prompts running or waiting (`/prompt`'s `queue_remaining`). */
  queueRemaining(): number;
  close(): Promise<void>;
}

const DEFAULT_STEP_MS = 300;
const DEFAULT_NODE_MS = 5;

/** Start the stand-in engine and resolve once it listens. */
export async function startStandinEngine(options: StandinOptions): Promise<StandinEngine> {
  const logger = options.logger ?? silentLogger;
  const host = options.host ?? '127.0.0.1';
  const resources = options.resourcesDir ?? standinResourcesDir();
  const ownsTemp = !options.tempDir;
  const dirs: EngineDirs = {
    input: path.resolve(options.inputDir),
    output: path.resolve(options.outputDir),
    temp: options.tempDir ? path.resolve(options.tempDir) : fs.mkdtempSync(path.join(os.tmpdir(), 'standin-temp-')),
  };
  // The engine deletes temp/ at every start; previews never survive a restart.
  if (!ownsTemp) fs.rmSync(dirs.temp, { recursive: true, force: true });
  for (const dir of Object.values(dirs)) fs.mkdirSync(dir, { recursive: true });
  const modelFolders = options.modelFolders ?? new Map<string, string[]>();
  const files = new FileLists(dirs.input, modelFolders);
  const customNodes = options.customNodesDir && options.python && !options.objectInfoFile ? await loadCustomNodes(options.customNodesDir, options.python, logger) : {};
  const catalog = options.objectInfoFile ? NodeCatalog.fromFile(options.objectInfoFile) : NodeCatalog.builtIn(resources, files, customNodes);
  const media = loadMedia(resources);

  let port = options.port;
  const late: { service?: StandinService } = {};
  const hub = new WsHub({
    logger,
    queueRemaining: () => late.service?.queue.remaining() ?? 0,
    serverFeatures,
    onConnect: (sid) => late.service?.onConnect(sid),
  });
  const service = new StandinService({ catalog, hub, media, dirs, stepMs: options.stepMs ?? DEFAULT_STEP_MS, nodeMs: options.nodeMs ?? DEFAULT_NODE_MS, logger, previewMethod: options.previewMethod, beforeNode: options.beforeNode });
  late.service = service;
  // Answers imitate the engine's aiohttp server, so Express adds no ETag or X-Powered-By of its own.
  const app = express().disable('etag').disable('x-powered-by').enable('case sensitive routing').enable('strict routing');
  // DNS rebinding: the same Host rule as Studio's (loopback, this machine's names, STUDIO_ALLOWED_HOSTS).
  const hostRule = { bindHost: host, allowed: options.allowedHosts ?? [] };
  app.use((req, res, next) => {
    if (!isAllowedHost(req.headers.host, hostRule)) return refuse(req, res, 421, HOST_REFUSED);
    if (engineRefusesOrigin(req)) return void res.status(403).end();
    next();
  });
  const routes = [
    engineRoutes({ service, catalog, files: (folder) => (modelFolders.has(folder) ? listModelFiles(modelFolders.get(folder) ?? []) : null), argv: () => engineArgv(host, port, dirs) }),
    fileRoutes({ dirs, logger }),
  ];
  // Every route also answers under `/api`.
  app.use('/api', ...routes);
  app.use(...routes);
  app.use((_req, res) => res.status(404).type('text').send('404: Not Found'));
  app.use(engineErrorPage(logger));
  const server = http.createServer(app);
  server.on('upgrade', (req, socket, head) => {
    if (!isAllowedHost(req.headers.host, hostRule)) {
      socket.end(`HTTP/1.1 421 Misdirected Request\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${HOST_REFUSED}\n`);
      return;
    }
    if (engineRefusesOrigin(req)) {
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (pathname === '/ws' || pathname === '/api/ws') hub.handleUpgrade(req, socket, head);
    else socket.destroy();
  });
  server.listen(options.port, host);
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  logger.info(`stand-in: ${catalog.size} node types, input ${dirs.input}, output ${dirs.output}, temp ${dirs.temp}`);

  let closing: Promise<void> | null = null;
  const close = async (): Promise<void> => {
    await service.close();
    await hub.close();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    if (ownsTemp) fs.rmSync(dirs.temp, { recursive: true, force: true });
  };
  return {
    port,
    url,
    queueRemaining: () => service.queue.remaining(),
    close: () => (closing ??= close()),
  };
}

/** aiohttp's own 413 and 500 pages (the engine crashes on malformed bodies; clients see its generic 500). */
function engineErrorPage(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    if (res.headersSent) return void res.destroy();
    const { status, code } = err as { status?: unknown; code?: unknown };
    if (status === 413 || code === 'LIMIT_FILE_SIZE') return void res.status(413).type('text').send('413: Request Entity Too Large');
    logger.warn(`stand-in: ${req.method} ${req.url}: ${err instanceof Error ? err.message : String(err)}`);
    res.status(500).type('text').send('500 Internal Server Error\n\nServer got itself in trouble');
  };
}

/** The engine's flags this stand-in stands for, as `system_stats.argv` shows them. */
function engineArgv(host: string, port: number, dirs: EngineDirs): string[] {
  return [
    'main.py',
    '--listen',
    host,
    '--port',
    String(port),
    '--input-directory',
    dirs.input,
    '--output-directory',
    dirs.output,
  ];
}
