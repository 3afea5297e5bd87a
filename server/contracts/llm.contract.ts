/**
 * The LLM server's configuration as `GET/POST /api/admin/llm/config` carry it (spec "LLM configuration").
 */
import { z } from 'zod';

export type LlmConfig = z.infer<typeof llmConfigFields>;

export const llmConfigFields = z.object({
  n_gpu_layers: z.number().int().min(-1).max(10_000),
  ctx_size: z.number().int().min(0).max(10_000_000),
  threads: z.number().int().min(-1).max(1024),
  temp: z.number().min(0).max(10),
  top_p: z.number().min(0).max(1),
  top_k: z.number().int().min(0).max(100_000),
  repeat_penalty: z.number().min(0).max(10),
});

/** A partial configuration from a request body (unknown keys ignored, bad values → zod error). */
export const llmConfigPatch = llmConfigFields.partial();

export const llmStartBody = llmConfigPatch.extend({ model: z.string({ error: 'required (the file name of a downloaded LLM model)' }).min(1) });

/** `POST /api/admin/llm/chat`: an OpenAI-style chat body, passed on to the LLM server as it is. */
export const llmChatBody = z.looseObject({});

/** `POST /api/admin/llm/improve-prompt`: a prompt of the Run page to improve with the local LLM. */
export const improvePromptBody = z.object({
  text: z
    .string({ error: (issue) => (issue.input === undefined ? 'required (the prompt to improve)' : 'must be text (the prompt to improve)') })
    .trim()
    .min(1, 'required (the prompt to improve)')
    .max(4000, 'must be at most 4000 characters'),
  /** `negative`: a negative prompt (what to avoid) is improved as one. */
  kind: z.enum(['positive', 'negative']).default('positive'),
});
