/**
 * People of one Studio (issue 43): roles and personal key scopes. The holder of `API_KEY` is the
 * owner (id `owner`); a Studio where nobody else was added behaves exactly as one without accounts.
 */

/** `owner` is the holder of `API_KEY`; the others are added by the owner or an admin. */
export type Role = 'owner' | 'admin' | 'member' | 'viewer';

/** A personal key's reach, never past its person's role: read < run < admin. */
export type KeyScope = 'read' | 'run' | 'admin';

/** The owner's fixed id: records made before accounts existed belong to it. */
export const OWNER_ID = 'owner';
