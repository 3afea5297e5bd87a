/**
 * Kept LLM chats (`/api/admin/llm/chats`, README "LLM chats"): conversations stored with their
 * model and settings, listed, renamed, deleted, exported as Markdown or JSON.
 */
import { z } from 'zod';

/** Per-chat settings: the sampling values sent with each message, and an optional system prompt. */
const chatSettingsSchema = z.object({
  temperature: z.number().min(0).max(10).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.number().int().min(0).max(100_000).optional(),
  repeat_penalty: z.number().min(0).max(10).optional(),
  max_tokens: z.number().int().min(1).max(1_000_000).optional(),
  system: z.string().max(20_000).optional(),
});
export type ChatSettings = z.infer<typeof chatSettingsSchema>;

const chatMessageSchema = z.object({
  role: z.enum(['system', 'user', 'assistant']),
  content: z.string().max(2_000_000),
});

export const chatCreateBody = z.object({
  title: z.string().trim().min(1).max(200).optional(),
  model: z.string().min(1).max(500).nullable().optional(),
  settings: chatSettingsSchema.optional(),
  messages: z.array(chatMessageSchema).max(10_000).optional(),
});

export const chatPatchBody = z.object({
  title: z.string().trim().min(1).max(200).optional(),
  model: z.string().min(1).max(500).nullable().optional(),
  settings: chatSettingsSchema.optional(),
});

export const chatAppendBody = z.object({ messages: z.array(chatMessageSchema).min(1).max(1000) });

export const chatExportQuery = z.object({ format: z.enum(['md', 'json']).default('md') });

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
  created_at: string;
}

export interface ChatSummary {
  id: string;
  title: string;
  model: string | null;
  settings: ChatSettings;
  created_at: string;
  updated_at: string;
  message_count: number;
  /** The person the chat belongs to; absent for the owner of Studio. */
  owner_id?: string;
}

export interface ChatDetail extends ChatSummary {
  messages: ChatMessage[];
}
