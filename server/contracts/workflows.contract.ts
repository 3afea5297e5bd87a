/**
 * `manifest.yaml`, validated. The spec fields plus what Studio adds (documented in
 * `workflows/README.md`): input types `float`, `bool`, `select`, `loras`; `block` on inputs of
 * dynamic workflows; `blocks` (assembly order) and `outputs_map` (output classification).
 */
import { z } from 'zod';
import { jsonObjectText } from './fields.js';

/** A workflow id (its folder's name): the manifest, the store, import and the update's sync all hold ids to it. */
export const WORKFLOW_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
/** Input ids double as `{{placeholder}}` names, so they keep to identifier characters. */
const INPUT_ID_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
const DATE_PATTERN = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/;

const inputBase = z.object({
  id: z.string().regex(INPUT_ID_PATTERN, 'input ids are letters, digits and underscores'),
  label: z.string().optional(),
  description: z.string().optional(),
  /** The API node this input sets; in dynamic workflows a node id local to `block`. */
  node_id: z.number().int().nonnegative().optional(),
  field: z.string().min(1).optional(),
  /** Dynamic workflows only: the block whose local `node_id` this input targets. */
  block: z.string().min(1).optional(),
});

const numberBounds = { min: z.number().optional(), max: z.number().optional(), step: z.number().positive().optional() };

/** A LoRA chosen on the form: a file name under `models/loras` and a strength. */
export const loraItemSchema = z.object({
  name: z.string().min(1),
  strength: z.number().min(-100).max(100).default(1),
  strength_clip: z.number().min(-100).max(100).optional(),
});
export type LoraItem = z.infer<typeof loraItemSchema>;

const manifestInputSchema = z.discriminatedUnion('type', [
  inputBase.extend({ type: z.literal('image'), default: z.string().optional() }),
  inputBase.extend({ type: z.literal('text'), default: z.string().optional(), multiline: z.boolean().optional() }),
  inputBase.extend({ type: z.literal('int'), default: z.number().int().optional(), ...numberBounds }),
  inputBase.extend({ type: z.literal('float'), default: z.number().optional(), ...numberBounds }),
  inputBase.extend({ type: z.literal('seed'), default: z.number().int().min(-1).default(-1) }),
  inputBase.extend({ type: z.literal('bool'), default: z.boolean().optional() }),
  inputBase.extend({
    type: z.literal('select'),
    options: z.array(z.string()).min(1),
    default: z.string().optional(),
  }),
  inputBase.extend({
    type: z.literal('loras'),
    default: z.array(loraItemSchema).default([]),
    /** Most LoRAs the form may chain. */
    max: z.number().int().positive().optional(),
  }),
]);
export type ManifestInput = z.infer<typeof manifestInputSchema>;

const outputKindSchema = z.enum(['final', 'preview', 'intermediate']);

const manifestSchema = z
  .object({
    id: z.string().regex(WORKFLOW_ID_PATTERN, 'workflow ids are letters, digits, "-" and "_"'),
    name: z.string().min(1),
    type: z.enum(['static', 'dynamic']),
    category: z.string().default(''),
    description: z.string().default(''),
    author: z.string().default(''),
    version: z.number().int().nonnegative(),
    date: z.string().regex(DATE_PATTERN, 'date must be "YYYY-MM-DD HH:MM"'),
    inputs: z.array(manifestInputSchema).default([]),
    outputs: z.array(z.object({ type: z.enum(['video', 'image']), format: z.string().optional() })).default([]),
    required_models: z.array(z.string().min(1)).default([]),
    required_nodes: z.array(z.string().min(1)).default([]),
    /** Imported workflows: package → install URL for required node packages the engine lacked. */
    node_sources: z.record(z.string(), z.string().url()).optional(),
    /** Dynamic workflows: block names in assembly order (default: `blocks/*.json` sorted by name). */
    blocks: z.array(z.string().min(1)).optional(),
    /**
     * Output classification overrides: API node id (static) or `<block>:<local id>` (dynamic)
     * → `final` | `preview` | `intermediate`.
     */
    outputs_map: z.record(z.string(), outputKindSchema).optional(),
  })
  .superRefine((manifest, ctx) => {
    const seen = new Set<string>();
    manifest.inputs.forEach((input, index) => {
      const path = ['inputs', index];
      if (seen.has(input.id)) ctx.addIssue({ code: 'custom', path: [...path, 'id'], message: `duplicate input id "${input.id}"` });
      seen.add(input.id);
      if ((input.node_id === undefined) !== (input.field === undefined)) {
        ctx.addIssue({ code: 'custom', path, message: 'node_id and field go together' });
      }
      if (manifest.type === 'static' && input.block !== undefined) {
        ctx.addIssue({ code: 'custom', path: [...path, 'block'], message: 'block is for dynamic workflows only' });
      }
      if (manifest.type === 'dynamic' && input.node_id !== undefined && input.block === undefined) {
        ctx.addIssue({ code: 'custom', path, message: 'in a dynamic workflow node_id needs a block' });
      }
      if (input.type === 'loras') {
        if (manifest.type !== 'dynamic') {
          ctx.addIssue({ code: 'custom', path: [...path, 'type'], message: 'loras inputs need a dynamic workflow' });
        }
        if (input.node_id !== undefined) {
          ctx.addIssue({ code: 'custom', path, message: 'loras inputs drive assembly and map to no node' });
        }
      }
      if (input.type === 'select' && input.default !== undefined && !input.options.includes(input.default)) {
        ctx.addIssue({ code: 'custom', path: [...path, 'default'], message: 'default is not one of the options' });
      }
      if ((input.type === 'int' || input.type === 'float') && input.min !== undefined && input.max !== undefined && input.min > input.max) {
        ctx.addIssue({ code: 'custom', path, message: 'min is above max' });
      }
    });
    if (manifest.type === 'static' && manifest.blocks !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['blocks'], message: 'blocks is for dynamic workflows only' });
    }
  });

/** A validated `manifest.yaml`. */
export type WorkflowManifest = z.infer<typeof manifestSchema>;

/** Validate a parsed manifest; throws a readable one-line error naming the offending fields. */
export function parseManifest(raw: unknown): WorkflowManifest {
  const result = manifestSchema.safeParse(raw);
  if (result.success) return result.data;
  const issues = result.error.issues.slice(0, 3).map((issue) => {
    const where = issue.path.length ? issue.path.map(String).join('.') : 'manifest';
    return `${where}: ${issue.message}`;
  });
  const more = result.error.issues.length > 3 ? ` (+${result.error.issues.length - 3} more)` : '';
  throw new Error(`invalid manifest: ${issues.join('; ')}${more}`);
}

export interface ModelsStatus {
  total: number;
  present: number;
  missing: string[];
}

export interface NodesStatus {
  total: number;
  installed: number;
  missing: string[];
}

export const buildQuery = z.object({ format: z.enum(['api', 'workflow']).default('api') });

/** `POST /api/run/{id}/build`: JSON or multipart, `params` a JSON object or its text. */
export const buildFields = z.object({ params: jsonObjectText('params') });

/**
 * Where a node package an imported file names would be installed from (list entries'
 * `node_source_checks`, the import answer's): `from: "node_map"` — the curated or community map
 * knows the name, and `url` is the map's (`file_url`/`file_differs` when the file named another);
 * `from: "file"` — only the file names it: `confirm` says to ask before anything is fetched.
 */
export interface NodeSourceCheck {
  url: string;
  host: string;
  owner: string;
  from: 'node_map' | 'file';
  confirm: boolean;
  file_url?: string;
  file_differs?: boolean;
}

/** `POST /api/admin/workflows/import`: the stored workflow's id and manifest, and what to look at. */
export interface WorkflowImportAnswer {
  id: string;
  manifest: WorkflowManifest;
  warnings: string[];
  /** Package → where it would be installed from, for the manifest's `node_sources`. */
  node_source_checks?: Record<string, NodeSourceCheck>;
}

/** One field of one node, as the form editor lists it. */
export interface FormFieldInfo {
  name: string;
  /** The workflow's value (text unescaped); a link is `[node, output]`. */
  value: unknown;
  /** False for links and values a form cannot set. */
  settable: boolean;
  /** The form input that sets this field, when one does. */
  used_by?: string;
  /** The input the editor adds for this field (type, limits and choices from the engine's node schema). */
  suggested?: ManifestInput;
}

/** A node of the stored graph, as the form editor lists it. */
export interface FormNodeInfo {
  id: string;
  class_type: string;
  title?: string;
  fields: FormFieldInfo[];
}

/** `GET /api/admin/workflows/{id}/form`. */
export interface WorkflowFormAnswer {
  id: string;
  manifest: WorkflowManifest;
  nodes: FormNodeInfo[];
}

/** `PUT /api/admin/workflows/{id}/form`: the whole list of inputs, in form order (validated as the manifest's). */
export const formSaveBody = z.object({ inputs: z.array(z.unknown()).max(500) });
export type FormSaveBody = z.infer<typeof formSaveBody>;

/** What a re-import changes. */
export interface ReimportDiff {
  nodes_added: { id: string; class_type: string }[];
  nodes_removed: { id: string; class_type: string }[];
  /** Nodes in both whose set values differ (fields named). */
  nodes_changed: { id: string; class_type: string; fields: string[] }[];
  /** Form inputs kept with the user's edits (their node is still there). */
  inputs_kept: string[];
  /** Form inputs dropped, and why (their node vanished, changed class, or the field is now linked). */
  inputs_dropped: { id: string; label: string; reason: string }[];
  /** Inputs proposed for nodes the new version adds. */
  inputs_added: string[];
}

/** `POST /api/admin/workflows/{id}/reimport`. */
export interface ReimportAnswer extends WorkflowImportAnswer {
  diff: ReimportDiff;
  /** False for a preview (nothing written). */
  applied: boolean;
}

export const reimportFields = z.object({ apply: z.enum(['true', 'false']).default('false') });

/** A workflow list entry: the manifest plus readiness (a broken one carries `error`). */
export type WorkflowEntry = WorkflowManifest & {
  models_status: ModelsStatus;
  nodes_status: NodesStatus;
  ready: boolean;
  error?: string;
  /** With an engine pool: on how many engines it can run. */
  engines_ready?: { ready: number; total: number };
  /** Imported workflows: where each package of `node_sources` would be installed from. */
  node_source_checks?: Record<string, NodeSourceCheck>;
};

/** `GET /api/workflows`. */
export interface WorkflowList {
  version: number;
  date: string;
  workflows: WorkflowEntry[];
}
