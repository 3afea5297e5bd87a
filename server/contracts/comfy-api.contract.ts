/**
 * The settings of the engine's own API served by Studio (issue 44): whether it is on, and where
 * clients reach it. The API itself answers in the engine's shapes, not Studio's.
 */
import { z } from 'zod';

/** `GET /api/admin/comfy-api`. */
export interface ComfyApiState {
  enabled: boolean;
  /** `COMFY_API=on` turns it on whatever the page says. */
  forced_by_env: boolean;
  /** The path prefix on Studio's own port (`/comfy`; `/comfy/api` too). */
  path: string;
  /** `COMFY_API_PORT`: a listener of its own where the API is at the root (null: none). */
  port: number | null;
}

/** `PUT /api/admin/comfy-api`. */
export const comfyApiToggle = z.object({ enabled: z.boolean() }).strict();
