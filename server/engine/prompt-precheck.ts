/**
 * The engine's prompt validation, run by Studio before a job enters its queue: a job may wait a
 * long time before an engine takes it, and a bad graph must still be a 400 at once with the
 * engine's node errors. The rules are Studio's one copy of the engine's `validate_prompt`
 * (`prompt-rules/validator.ts`, which the stand-in answers `/prompt` with too), checked against the engine's own
 * `object_info` (its node set and live file lists). Input files (a LoadImage value) are asked of
 * the engine itself, so this holds whether or not its folders are Studio's.
 */
import type { ObjectInfo } from './engine-graph.js';
import type { NodeInfo } from './prompt-rules/node-inputs.js';
import { FILE_CHECKS, validatePrompt, type NodeLookup } from './prompt-rules/validator.js';
import type { EngineValidationBody } from './engine-protocol.js';

/** The nodes that load an input file, and which input names it (one list: the rules'). */
export { FILE_CHECKS } from './prompt-rules/validator.js';


/** Where the pre-check asks whether an input file exists: an engine's `/view` (`EngineClient.viewStream`), or Studio's own folder. */
export interface InputFileProbe {
  viewStream(req: { filename: string; subfolder: string; type: 'input' | 'output' | 'temp' }): Promise<{ status: number; body: { destroy(): void } } | null>;
}

/**
 * Null when the engine would accept `graph`; otherwise the body its `POST /prompt` would answer 400 with.
 * `checksFileLists: false` is for the stand-in engine: it answers a graph whose model files are
 * missing with a test card (the Run page promises so), so a model missing from its lists is no refusal.
 */
export async function precheckPrompt(graph: Record<string, unknown>, objectInfo: ObjectInfo, engine: InputFileProbe, checksFileLists = true): Promise<EngineValidationBody | null> {
  const existing = await existingInputFiles(graph, engine);
  const lookup: NodeLookup = {
    get: (classType: string) => (Object.hasOwn(objectInfo, classType) ? (objectInfo[classType] as unknown as NodeInfo) : undefined),
    live: (classType: string) => (Object.hasOwn(objectInfo, classType) ? (objectInfo[classType] as unknown as NodeInfo) : undefined),
    // The engine's object_info lists its files as they are: its combos are the truth.
    checksFileLists,
  };
  const result = validatePrompt(graph, { catalog: lookup, fileExists: (name) => existing.has(name) });
  if (result.ok) return null;
  return { error: result.error, node_errors: result.nodeErrors };
}

/** The input-file values of the graph's file-loading nodes that the engine can serve. */
async function existingInputFiles(graph: Record<string, unknown>, engine: InputFileProbe): Promise<Set<string>> {
  const names = new Set<string>();
  for (const node of Object.values(graph)) {
    if (typeof node !== 'object' || node === null) continue;
    const { class_type: classType, inputs } = node as { class_type?: unknown; inputs?: Record<string, unknown> };
    const check = typeof classType === 'string' ? FILE_CHECKS[classType] : undefined;
    const value = check && inputs ? inputs[check.input] : undefined;
    if (typeof value === 'string' && value !== '') names.add(value);
  }
  const found = new Set<string>();
  await Promise.all(
    [...names].map(async (name) => {
      const { filename, subfolder, type } = splitAnnotated(name);
      const res = await engine.viewStream({ filename, subfolder, type }).catch(() => null);
      res?.body.destroy();
      if (res?.status === 200) found.add(name);
    }),
  );
  return found;
}

/** `sub/x.png [output]` → its folder type, subfolder and file name (the engine's annotated names). */
function splitAnnotated(name: string): { filename: string; subfolder: string; type: 'input' | 'output' | 'temp' } {
  const match = /^(.*) \[(input|output|temp)\]$/.exec(name);
  const rel = match ? match[1]! : name;
  const type = (match ? match[2] : 'input') as 'input' | 'output' | 'temp';
  const slash = rel.lastIndexOf('/');
  return slash < 0 ? { filename: rel, subfolder: '', type } : { filename: rel.slice(slash + 1), subfolder: rel.slice(0, slash), type };
}
