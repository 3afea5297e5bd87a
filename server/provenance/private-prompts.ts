/**
 * A workflow's private prompts: the text a person typed stays out of everything an output
 * carries. The A1111 text leaves the prompt lines out; the engine's own `prompt` and `workflow`
 * chunks keep every node and link (the editor still opens them) with each text encoder's text
 * emptied.
 */

const TEXT_INPUTS = new Set(['text', 'text_g', 'text_l', 'prompt', 'positive', 'negative']);

function isTextEncoder(type: unknown): boolean {
  return typeof type === 'string' && /TextEncode|Prompt/i.test(type);
}

/** The engine's `prompt` (API graph) or `workflow` (editor graph) JSON with the prompt text emptied; null when it is neither. */
export function withoutPromptText(key: string, json: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return null;
  }
  if (!value || typeof value !== 'object') return null;
  if (key === 'prompt') {
    for (const node of Object.values(value as Record<string, { class_type?: unknown; inputs?: Record<string, unknown> }>)) {
      if (!node?.inputs || !isTextEncoder(node.class_type)) continue;
      for (const name of Object.keys(node.inputs)) if (TEXT_INPUTS.has(name) && typeof node.inputs[name] === 'string') node.inputs[name] = '';
    }
    return JSON.stringify(value);
  }
  if (key === 'workflow') {
    const nodes = (value as { nodes?: Array<{ type?: unknown; widgets_values?: unknown }> }).nodes ?? [];
    for (const node of nodes) {
      if (isTextEncoder(node.type) && Array.isArray(node.widgets_values)) node.widgets_values = node.widgets_values.map((v) => (typeof v === 'string' ? '' : v));
    }
    return JSON.stringify(value);
  }
  return null;
}
