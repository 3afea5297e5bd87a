/**
 * The LLM endpoints (spec "LLM"): its model catalog, the server's start/stop/config/status, and
 * the chat proxy, streamed as server-sent events and read chunk by chunk.
 */
import type { LlmConfig } from '../../../server/contracts/llm.contract.js';
import type { ChatDetail, ChatSettings, ChatSummary } from '../../../server/contracts/llm-chats.contract.js';
import type { FitView } from '../../../server/contracts/llm-fit.contract.js';
import { ApiError, detailOf, type Http } from './http.js';
import type { CatalogModel } from './types.js';

export type { ChatDetail, ChatSummary, FitView, LlmConfig };

export interface LlmCatalog {
  version: number;
  date: string;
  categories: Array<{ id: string; name: string; models: CatalogModel[] }>;
  summary: { total: number; present: number };
}

export interface LlmStatus {
  running: boolean;
  active_model: string | null;
  config: LlmConfig;
  health: Record<string, unknown> | null;
  port: number;
  binary_exists: boolean;
  parked?: boolean;
  idle_stopped?: boolean;
  last_error?: string | null;
  /** "Improve prompt" can answer: the server runs, or a runtime and a model can start it. */
  can_improve?: boolean;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatSampling {
  temperature?: number;
  top_p?: number;
  top_k?: number;
  repeat_penalty?: number;
  max_tokens?: number;
}

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

interface StreamChunk {
  choices?: Array<{ delta?: { content?: string | null } }>;
  usage?: ChatUsage;
  error?: { message?: string } | string;
}

export class LlmApi {
  constructor(private readonly http: Http) {}

  catalog(): Promise<LlmCatalog> {
    return this.http.get('/api/admin/llm/models');
  }
  download(file: string): Promise<{ status: string; file: string }> {
    return this.http.post(`/api/admin/llm/models/download/${encodeURIComponent(file)}`);
  }
  remove(file: string): Promise<{ status: string; file: string }> {
    return this.http.delete(`/api/admin/llm/models/${encodeURIComponent(file)}`);
  }
  status(): Promise<LlmStatus> {
    return this.http.get('/api/admin/llm/status');
  }
  start(model: string, config: Partial<LlmConfig>): Promise<{ status: string; model: string; port: number }> {
    return this.http.post('/api/admin/llm/start', { model, ...config });
  }
  stop(): Promise<{ status: string }> {
    return this.http.post('/api/admin/llm/stop');
  }
  saveConfig(config: Partial<LlmConfig>): Promise<{ status: string; config: LlmConfig }> {
    return this.http.post('/api/admin/llm/config', config);
  }

  /** What fits on the GPU, per catalog entry. */
  fit(ctxSize?: number): Promise<FitView> {
    return this.http.get('/api/admin/llm/fit', ctxSize ? { ctx_size: String(ctxSize) } : undefined);
  }

  chats(): Promise<{ chats: ChatSummary[] }> {
    return this.http.get('/api/admin/llm/chats');
  }
  chat(id: string): Promise<ChatDetail> {
    return this.http.get(`/api/admin/llm/chats/${encodeURIComponent(id)}`);
  }
  createChat(body: { title?: string; model?: string | null; settings?: ChatSettings }): Promise<ChatDetail> {
    return this.http.post('/api/admin/llm/chats', body);
  }
  updateChat(id: string, patch: { title?: string; model?: string | null; settings?: ChatSettings }): Promise<ChatDetail> {
    return this.http.patch(`/api/admin/llm/chats/${encodeURIComponent(id)}`, patch);
  }
  appendMessages(id: string, messages: ChatMessage[]): Promise<ChatDetail> {
    return this.http.post(`/api/admin/llm/chats/${encodeURIComponent(id)}/messages`, { messages });
  }
  deleteChat(id: string): Promise<{ status: string }> {
    return this.http.delete(`/api/admin/llm/chats/${encodeURIComponent(id)}`);
  }
  exportUrl(id: string, format: 'md' | 'json'): string {
    return this.http.url(`/api/admin/llm/chats/${encodeURIComponent(id)}/export`, { format });
  }

  /** Stream a chat answer: `onDelta` gets each piece of text as it arrives; resolves with the usage. */
  chatStream(messages: ChatMessage[], sampling: ChatSampling, onDelta: (text: string) => void, signal: AbortSignal): Promise<ChatUsage | null> {
    return this.stream('/api/admin/llm/chat', { messages, stream: true, ...sampling }, onDelta, signal);
  }

  /** Stream an improved version of a Run-page prompt from the local LLM. */
  improvePrompt(text: string, kind: 'positive' | 'negative', onDelta: (text: string) => void, signal: AbortSignal): Promise<ChatUsage | null> {
    return this.stream('/api/admin/llm/improve-prompt', { text, kind }, onDelta, signal);
  }

  private async stream(path: string, body: unknown, onDelta: (text: string) => void, signal: AbortSignal): Promise<ChatUsage | null> {
    let res: Response;
    try {
      res = await fetch(this.http.url(path), {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
        body: JSON.stringify(body),
        signal,
      });
    } catch (err) {
      if (signal.aborted) return null;
      throw new ApiError(0, `Studio is not reachable: ${(err as Error).message}`);
    }
    if (!res.ok || !res.body) {
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {}
      throw new ApiError(res.status, detailOf(body, res.status));
    }
    return readEvents(res.body, onDelta, signal);
  }
}

// SSE lines arrive split anywhere: keep the unfinished tail for the next read.
async function readEvents(body: ReadableStream<Uint8Array>, onDelta: (text: string) => void, signal: AbortSignal): Promise<ChatUsage | null> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let usage: ChatUsage | null = null;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.startsWith('data:')) continue;
        const data = line.slice(5).trim();
        if (data === '[DONE]') return usage;
        const chunk = JSON.parse(data) as StreamChunk;
        if (chunk.error) throw new ApiError(502, typeof chunk.error === 'string' ? chunk.error : (chunk.error.message ?? 'The LLM server failed mid-answer'));
        const text = chunk.choices?.[0]?.delta?.content;
        if (text) onDelta(text);
        if (chunk.usage) usage = chunk.usage;
      }
    }
  } catch (err) {
    if (signal.aborted) return usage;
    throw err;
  } finally {
    reader.releaseLock();
  }
  return usage;
}
