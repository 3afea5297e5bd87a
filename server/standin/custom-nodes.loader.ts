/**
 * Node packages loaded the way the engine loads them: every folder (or `.py` file) in
 * `custom_nodes` except `*.disabled` is imported with the engine's Python; its
 * `NODE_CLASS_MAPPINGS` become node types whose `python_module` is `custom_nodes.<folder>`. A
 * package that fails to import is logged in the engine's own words ("Cannot import … module for
 * custom nodes: …", "(IMPORT FAILED)" in the import-times list) and contributes no nodes. Nothing
 * is executed beyond the import and `INPUT_TYPES()`, as the engine does at start.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../logging.js';
import type { NodeInfo } from './standin.types.js';

const LOAD = `
import importlib.util, json, os, sys, time, traceback
root, out_file = sys.argv[1], sys.argv[2]
results = []
for entry in sorted(os.listdir(root)):
    path = os.path.join(root, entry)
    if os.path.isfile(path) and not entry.endswith(".py"):
        continue
    if entry.endswith(".disabled") or entry.startswith(".") or entry == "__pycache__":
        continue
    name = entry[:-3] if entry.endswith(".py") else entry
    started = time.perf_counter()
    result = {"name": name, "path": path, "ok": False, "error": None, "nodes": {}}
    try:
        init = os.path.join(path, "__init__.py") if os.path.isdir(path) else path
        spec = importlib.util.spec_from_file_location(name, init)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        mappings = getattr(module, "NODE_CLASS_MAPPINGS", None)
        if mappings is None:
            result["error"] = "lack of NODE_CLASS_MAPPINGS"
        else:
            display = getattr(module, "NODE_DISPLAY_NAME_MAPPINGS", {}) or {}
            for cls_name, cls in mappings.items():
                try:
                    inputs = json.loads(json.dumps(cls.INPUT_TYPES(), default=str))
                except Exception:
                    inputs = {"required": {}}
                outputs = list(getattr(cls, "RETURN_TYPES", ()))
                result["nodes"][cls_name] = {
                    "input": inputs,
                    "input_order": {k: list(v.keys()) for k, v in inputs.items() if isinstance(v, dict)},
                    "output": outputs,
                    "output_is_list": [False] * len(outputs),
                    "output_name": list(getattr(cls, "RETURN_NAMES", outputs)),
                    "name": cls_name,
                    "display_name": display.get(cls_name, cls_name),
                    "description": getattr(cls, "DESCRIPTION", ""),
                    "category": getattr(cls, "CATEGORY", "sd"),
                    "output_node": bool(getattr(cls, "OUTPUT_NODE", False)),
                    "python_module": "custom_nodes." + name,
                }
            result["ok"] = True
    except Exception as e:
        result["error"] = str(e)
        result["traceback"] = traceback.format_exc()
    result["seconds"] = time.perf_counter() - started
    results.append(result)
with open(out_file, "w") as f:
    json.dump(results, f)
`;

interface LoadResult {
  name: string;
  path: string;
  ok: boolean;
  error: string | null;
  traceback?: string;
  seconds: number;
  nodes: Record<string, NodeInfo>;
}

/** Import the packages of `dir` with `python`; their node types, and the engine's log lines on stderr. */
export async function loadCustomNodes(dir: string, python: string, logger: Logger): Promise<Record<string, NodeInfo>> {
  if (!fs.existsSync(dir) || (await fsp.readdir(dir)).length === 0) return {};
  const scratch = await fsp.mkdtemp(path.join(os.tmpdir(), 'standin-nodes-'));
  const out = path.join(scratch, 'nodes.json');
  try {
    await new Promise<void>((resolve, reject) => {
      execFile(python, ['-c', LOAD, dir, out], { cwd: dir, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (err, _stdout, stderr) => {
        if (stderr.trim()) process.stderr.write(stderr.endsWith('\n') ? stderr : `${stderr}\n`);
        if (err) reject(err);
        else resolve();
      });
    });
    const results = JSON.parse(await fsp.readFile(out, 'utf8')) as LoadResult[];
    const nodes: Record<string, NodeInfo> = {};
    for (const r of results) {
      if (r.ok) Object.assign(nodes, r.nodes);
      else if (r.error === 'lack of NODE_CLASS_MAPPINGS') logger.warn(`Skip ${r.path} module for custom nodes due to the lack of NODE_CLASS_MAPPINGS.`);
      else {
        if (r.traceback) logger.warn(r.traceback.trimEnd());
        logger.warn(`Cannot import ${r.path} module for custom nodes: ${r.error ?? 'unknown error'}`);
      }
    }
    if (results.length > 0) {
      const lines = results.map((r) => `${r.seconds.toFixed(1).padStart(6)} seconds${r.ok ? '' : ' (IMPORT FAILED)'}: ${r.path}`);
      logger.info(`\nImport times for custom nodes:\n${lines.join('\n')}\n`);
    }
    return nodes;
  } catch (err) {
    logger.warn(`stand-in: could not load custom nodes from ${dir} with ${python}: ${err instanceof Error ? err.message : String(err)}`);
    return {};
  } finally {
    await fsp.rm(scratch, { recursive: true, force: true });
  }
}
