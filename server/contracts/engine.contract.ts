/**
 * The engine's file route (`GET /api/view`, the engine's own shape), which Studio serves itself.
 */
import { z } from 'zod';

export const viewQuery = z.object({
  filename: z.string().min(1),
  type: z.enum(['input', 'output', 'temp']).default('input'),
  subfolder: z.string().default(''),
});

export type ViewQuery = z.infer<typeof viewQuery>;
