/**
 * The login form's bodies (`POST /api/auth/login`): the owner's API key (the spec's form), or a
 * person's name and password (issue 43). A body naming `name` or `password` is the second form.
 */
import { z } from 'zod';

export const loginBody = z.object({
  api_key: z.string({ error: 'required (string)' }),
  next: z.string().optional(),
});

export const passwordLoginBody = z.object({
  name: z.string({ error: 'required (string)' }).max(200, 'at most 200 characters'),
  password: z.string({ error: 'required (string)' }).max(1024, 'at most 1024 characters'),
  next: z.string().optional(),
});
