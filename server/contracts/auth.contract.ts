/**
 * The login form's body (`POST /login`).
 */
import { z } from 'zod';
import { lazySchema } from './lazy-schema.js';

export const loginBody = lazySchema(() => z.object({
  api_key: z.string({ error: 'required (string)' }),
  next: z.string().optional(),
}));
