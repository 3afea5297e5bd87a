/**
 * The stand-in's command-line flags. They mirror the engine's own, so a supervisor can pass the
 * same command line to either.
 */
import path from 'node:path';
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

/** Parse the engine-style flags; unknown engine flags (`--cpu`, `--disable-auto-launch`…) are ignored. */
export function parseFlags(args: readonly string[], warn: (message: string) => void): CliFlags {
  const flags: CliFlags = {};
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] ?? '';
    const [name, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string => {
      if (inline !== undefined) return inline;
      const next = args[i + 1];
      if (next === undefined || next.startsWith('--')) throw new ConfigError(`${name} needs a value`);
      i += 1;
      return next;
    };
    switch (name) {
      case '--port':
        flags.port = nonNegativeInt(name, value());
        break;
      case '--host':
      case '--listen':
        flags.host = value();
        break;
      case '--input-directory':
        flags.inputDir = value();
        break;
      case '--output-directory':
        flags.outputDir = value();
        break;
      case '--temp-directory':
        // Like the engine, `--temp-directory X` puts temporary files in X/temp.
        flags.tempDir = path.join(value(), 'temp');
        break;
      case '--step-ms':
        flags.stepMs = nonNegativeInt(name, value());
        break;
      case '--object-info':
        flags.objectInfo = value();
        break;
      case '--extra-model-paths-config':
        flags.extraModelPaths = [...(flags.extraModelPaths ?? []), value()];
        break;
      case '--node-ms':
        flags.nodeMs = nonNegativeInt(name, value());
        break;
      case '--preview-method':
        flags.previewMethod = value();
        break;
      case '--resources-dir':
        flags.resourcesDir = value();
        break;
      case '--custom-nodes-dir':
        flags.customNodesDir = value();
        break;
      case '--python':
        flags.python = value();
        break;
      case '--parent-pid':
        flags.parentPid = nonNegativeInt(name, value());
        break;
      default:
        warn(`stand-in: ignoring unsupported flag ${arg}`);
    }
  }
  return flags;
}

function nonNegativeInt(name: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new ConfigError(`${name} must be a non-negative integer (got "${raw}")`);
  return n;
}
