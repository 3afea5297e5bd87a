/**
 * The login form's body (`POST /login`).
 */
import { z } from 'zod';

export const loginBody = z.object({
  api_key: z.string({ error: 'required (string)' }),
  next: z.string().optional(),
});
