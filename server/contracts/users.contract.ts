/**
 * People of one Studio (issue 43): roles, personal key scopes, and the wire of the Users and My
 * keys pages. The holder of `API_KEY` is the owner (id `owner`); a Studio where nobody else was
 * added behaves exactly as one without accounts.
 */
import { z } from 'zod';

/** `owner` is the holder of `API_KEY`; the others are added by the owner or an admin. */
export type Role = 'owner' | 'admin' | 'member' | 'viewer';

/** A personal key's reach, never past its person's role: read < run < admin. */
export type KeyScope = 'read' | 'run' | 'admin';

/** The owner's fixed id: records made before accounts existed belong to it. */
export const OWNER_ID = 'owner';

/** The roles the owner or an admin may give (nobody adds another owner). */
const ADDABLE_ROLES = ['admin', 'member', 'viewer'] as const;
const KEY_SCOPES = ['read', 'run', 'admin'] as const satisfies readonly KeyScope[];

const count = z.number().int().min(0).max(1_000_000).nullable().optional();

/** Per-person limits; a missing or null field is no limit (the queue enforces them). */
const quotasSchema = z
  .object({ jobs_per_hour: count, jobs_per_day: count, waiting: count, gpu_seconds_per_day: count })
  .strict();
export type Quotas = z.infer<typeof quotasSchema>;

const names = z.array(z.string().trim().min(1).max(300)).max(1000);
/** What a person may use: workflow ids, model file names or folders; a missing list is no limit. */
const allowSchema = z.object({ workflows: names.nullable().optional(), models: names.nullable().optional() }).strict();
export type Allow = z.infer<typeof allowSchema>;

const personName = z
  .string({ error: 'required (string)' })
  .trim()
  .min(1, 'must not be empty')
  .max(64, 'at most 64 characters')
  .refine((v) => ![...v].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f), 'must not hold control characters');
const password = z.string({ error: 'required (string)' }).min(8, 'at least 8 characters').max(1024, 'at most 1024 characters');
const role = z.enum(ADDABLE_ROLES, { error: 'one of admin, member, viewer' });

export const newUserBody = z
  .object({ name: personName, role, password, quotas: quotasSchema.nullable().optional(), allow: allowSchema.nullable().optional() })
  .strict();
export type NewUser = z.infer<typeof newUserBody>;

export const userPatchBody = z
  .object({
    name: personName.optional(),
    role: role.optional(),
    password: password.optional(),
    quotas: quotasSchema.nullable().optional(),
    allow: allowSchema.nullable().optional(),
    /** `false` enables a disabled person again (their old sessions stay ended). */
    disabled: z.boolean().optional(),
  })
  .strict();
export type UserPatch = z.infer<typeof userPatchBody>;

/** A person as the Users page and `GET /api/me` show them (never the password hash). */
export interface UserView {
  id: string;
  name: string;
  role: Role;
  quotas: Quotas | null;
  allow: Allow | null;
  disabled: boolean;
  created_at: string | null;
}

export const newKeyBody = z
  .object({ name: z.string({ error: 'required (string)' }).trim().min(1, 'must not be empty').max(64, 'at most 64 characters'), scope: z.enum(KEY_SCOPES, { error: 'one of read, run, admin' }) })
  .strict();

/** A personal key as listed (the key itself is shown once, at its making). */
export interface KeyView {
  id: string;
  name: string;
  scope: KeyScope;
  /** The first characters of the key, not secret: tells keys apart. */
  prefix: string;
  created_at: string;
  last_used_at: string | null;
}

/** `POST /api/me/keys`: the key, this once. */
export interface NewKeyAnswer {
  id: string;
  key: string;
  name: string;
  scope: KeyScope;
  prefix: string;
}

/** `GET /api/me`. */
export interface MeView {
  id: string;
  name: string;
  role: Role;
  /** The scope of the personal key the request came with (null: a session or the owner's key). */
  scope: KeyScope | null;
  quotas: Quotas | null;
  allow: Allow | null;
  /** What the person used of the quotas (the owner's too, unlimited): the windows the quotas count over. */
  use: QuotaUse;
}

/** A person's use against their quotas: jobs submitted in the last hour and 24 hours, queued or running now, engine seconds of the last 24 hours. */
export interface QuotaUse {
  jobs_this_hour: number;
  jobs_today: number;
  waiting: number;
  gpu_seconds_today: number;
}
