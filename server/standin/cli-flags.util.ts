/**
 * The stand-in's command-line flags. They mirror the engine's own, so a supervisor can pass the
 * same command line to either.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError } from '../config.js';

export interface CliFlags {
  port?: number;
  host?: string;
  inputDir?: string;
  outputDir?: string;
  tempDir?: string;
  stepMs?: number;
  objectInfo?: string;
  /** `--extra-model-paths-config`: the engine's model folders, as a managed engine gets them. */
  extraModelPaths?: string[];
  /** Stand-in only: how long a node without progress steps takes. */
  nodeMs?: number;
  previewMethod?: string;
  /** Stand-in only: its shipped node list and media (`resources/standin/` of the checkout or the packaged app). */
  resourcesDir?: string;
  /** Stand-in only: node packages to load like the engine does (`custom_nodes`). */
  customNodesDir?: string;
  /** Stand-in only: the Python that imports them (the engine's). */
  python?: string;
  /** Exit when this process is gone (Studio killed with SIGKILL must not leave an orphan on the port). */
  parentPid?: number;
}

/** The flags read, by engine name: the field each fills, and how its text is read. */
const FLAGS: Record<string, [keyof CliFlags, 'text' | 'int' | 'list' | 'tempParent']> = {
  port: ['port', 'int'],
  host: ['host', 'text'],
  listen: ['host', 'text'],
  'input-directory': ['inputDir', 'text'],
  'output-directory': ['outputDir', 'text'],
  // Like the engine, `--temp-directory X` puts temporary files in X/temp.
  'temp-directory': ['tempDir', 'tempParent'],
  'step-ms': ['stepMs', 'int'],
  'object-info': ['objectInfo', 'text'],
  'extra-model-paths-config': ['extraModelPaths', 'list'],
  'node-ms': ['nodeMs', 'int'],
  'preview-method': ['previewMethod', 'text'],
  'resources-dir': ['resourcesDir', 'text'],
  'custom-nodes-dir': ['customNodesDir', 'text'],
  python: ['python', 'text'],
  'parent-pid': ['parentPid', 'int'],
};

/** Parse the engine-style flags; unknown engine flags (`--cpu`, `--disable-auto-launch`…) are ignored. */
export function parseFlags(args: readonly string[], warn: (message: string) => void): CliFlags {
  const flags: Record<string, unknown> = {};
  const options = Object.fromEntries(Object.keys(FLAGS).map((name) => [name, { type: 'string' as const }]));
  for (const token of parseArgs({ args: [...args], options, strict: false, tokens: true }).tokens) {
    const known = token.kind === 'option' ? FLAGS[token.name] : undefined;
    if (token.kind === 'option-terminator') continue;
    if (token.kind === 'positional' || !known) {
      warn(`stand-in: ignoring unsupported flag ${token.kind === 'positional' ? token.value : token.rawName}`);
      continue;
    }
    const [field, kind] = known;
    // parseArgs takes the next flag for a missing value; the engine's argparse does not.
    if (token.value === undefined || (!token.inlineValue && token.value.startsWith('--'))) throw new ConfigError(`${token.rawName} needs a value`);
    if (kind === 'int') flags[field] = nonNegativeInt(token.rawName, token.value);
    else if (kind === 'list') flags[field] = [...((flags[field] as string[] | undefined) ?? []), token.value];
    else flags[field] = kind === 'tempParent' ? path.join(token.value, 'temp') : token.value;
  }
  return flags as CliFlags;
}

function nonNegativeInt(name: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new ConfigError(`${name} must be a non-negative integer (got "${raw}")`);
  return n;
}
