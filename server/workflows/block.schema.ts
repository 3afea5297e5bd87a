/**
 * A block of a dynamic workflow (`blocks/<name>.json`): a small API graph with local node ids,
 * named `imports` (inputs it needs from earlier blocks) and `exports` (outputs later blocks may
 * use), an optional `when` condition and an optional `repeat` over an array parameter.
 * The format is documented in `workflows/README.md`.
 */
import { z } from 'zod';
import { isLink } from '../engine/engine-graph.js';

const apiNodeSchema = z.object({
  class_type: z.string().min(1),
  inputs: z.record(z.string(), z.unknown()).default({}),
  _meta: z.looseObject({ title: z.string().optional() }).optional(),
});

const importTargetSchema = z.object({
  node: z.string().min(1),
  input: z.string().min(1),
  /** When no earlier block exports the name, drop this input instead of failing. */
  optional: z.boolean().optional(),
});

const exportSchema = z.tuple([z.string().min(1), z.number().int().nonnegative()]);

/** `"param"` (truthy) or `"!param"` (falsy). */
const whenSchema = z.string().regex(/^!?[A-Za-z_][A-Za-z0-9_]*$/, 'when is "<param>" or "!<param>"');

const blockSchema = z
  .object({
    description: z.string().optional(),
    when: whenSchema.optional(),
    /** One instance per item of this array parameter, chained in order. */
    repeat: z.string().min(1).optional(),
    nodes: z.record(z.string().min(1), apiNodeSchema),
    imports: z.record(z.string().min(1), z.union([importTargetSchema, z.array(importTargetSchema)])).default({}),
    exports: z.record(z.string().min(1), exportSchema).default({}),
  })
  .superRefine((block, ctx) => {
    const local = new Set(Object.keys(block.nodes));
    if (local.size === 0) ctx.addIssue({ code: 'custom', path: ['nodes'], message: 'a block needs at least one node' });
    for (const [id, node] of Object.entries(block.nodes)) {
      for (const [name, value] of Object.entries(node.inputs)) {
        if (isLink(value) && !local.has(String(value[0]))) {
          ctx.addIssue({ code: 'custom', path: ['nodes', id, 'inputs', name], message: `links to unknown local node "${String(value[0])}"` });
        }
      }
    }
    for (const [name, targets] of Object.entries(block.imports)) {
      for (const target of Array.isArray(targets) ? targets : [targets]) {
        if (!local.has(target.node)) {
          ctx.addIssue({ code: 'custom', path: ['imports', name], message: `targets unknown local node "${target.node}"` });
        }
      }
    }
    for (const [name, [node]] of Object.entries(block.exports)) {
      if (!local.has(node)) ctx.addIssue({ code: 'custom', path: ['exports', name], message: `exports unknown local node "${node}"` });
    }
  });

/** A validated block template. */
export type BlockTemplate = z.infer<typeof blockSchema>;

/** Validate a parsed block file; throws a readable error naming the offending field. */
export function parseBlock(raw: unknown, name: string): BlockTemplate {
  const result = blockSchema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue?.path.length ? issue.path.map(String).join('.') : 'block';
  throw new Error(`invalid block "${name}": ${where}: ${issue?.message ?? 'invalid'}`);
}
