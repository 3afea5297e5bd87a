/**
 * The LLM: its model catalog, the server (status, start with a configuration, stop, save the
 * configuration) and chats that stream answers token by token, each with its own sampling.
 */
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { useClient } from '../api/context.js';
import { LlmApi, type ChatMessage, type ChatSampling, type ChatUsage, type LlmCatalog, type LlmConfig, type LlmStatus } from '../api/llm-api.js';

export interface Chat {
  id: number;
  title: string;
  messages: ChatMessage[];
  sampling: ChatSampling;
  usage: ChatUsage | null;
}

export const useLlmStore = defineStore('llm', () => {
  const api = new LlmApi(useClient().api.http);
  const catalog = ref<LlmCatalog | null>(null);
  const status = ref<LlmStatus | null>(null);
  const error = ref<string | null>(null);
  const chats = ref<Chat[]>([]);
  const activeId = ref<number | null>(null);
  const streaming = ref(false);
  let nextId = 1;
  let controller: AbortController | null = null;

  const presentModels = computed(() => catalog.value?.categories.flatMap((c) => c.models).filter((m) => m.status === 'present') ?? []);
  const activeChat = computed(() => chats.value.find((c) => c.id === activeId.value) ?? null);

  async function refresh(): Promise<void> {
    try {
      const [c, s] = await Promise.all([api.catalog(), api.status()]);
      catalog.value = c;
      status.value = s;
      error.value = null;
    } catch (err) {
      error.value = err instanceof Error ? err.message : String(err);
    }
  }

  async function download(file: string): Promise<void> {
    await api.download(file);
    catalog.value = await api.catalog();
  }

  async function remove(file: string): Promise<void> {
    await api.remove(file);
    await refresh();
  }

  async function start(model: string, config: Partial<LlmConfig>): Promise<void> {
    try {
      await api.start(model, config);
    } finally {
      status.value = await api.status();
    }
  }

  async function stop(): Promise<void> {
    await api.stop();
    status.value = await api.status();
  }

  async function saveConfig(config: Partial<LlmConfig>): Promise<void> {
    await api.saveConfig(config);
    status.value = await api.status();
  }

  /** A new, empty chat whose sampling starts from the server's configuration. */
  function newChat(): Chat {
    const cfg = status.value?.config;
    const chat: Chat = { id: nextId++, title: `Chat ${nextId - 1}`, messages: [], usage: null, sampling: { temperature: cfg?.temp, top_p: cfg?.top_p, top_k: cfg?.top_k, repeat_penalty: cfg?.repeat_penalty, max_tokens: 512 } };
    chats.value = [...chats.value, chat];
    activeId.value = chat.id;
    return chat;
  }

  /** Send a user message in the active chat and stream the answer into it. */
  async function send(text: string): Promise<void> {
    if (!activeChat.value) newChat();
    // Through the store's reactive proxy (not newChat's plain object) so each delta re-renders.
    const chat = activeChat.value!;
    chat.messages.push({ role: 'user', content: text });
    if (chat.messages.length === 1) chat.title = text.slice(0, 40);
    const history = chat.messages.map((m) => ({ ...m }));
    chat.messages.push({ role: 'assistant', content: '' });
    const answer = chat.messages[chat.messages.length - 1]!;
    controller = new AbortController();
    streaming.value = true;
    try {
      chat.usage = await api.chatStream(history, chat.sampling, (delta) => (answer.content += delta), controller.signal);
    } catch (err) {
      if (!answer.content) chat.messages.pop();
      throw err;
    } finally {
      streaming.value = false;
      controller = null;
    }
  }

  /** Stop the answer being streamed (what arrived stays). */
  function stopAnswer(): void {
    controller?.abort();
  }

  return { catalog, status, error, chats, activeId, activeChat, streaming, presentModels, refresh, download, remove, start, stop, saveConfig, newChat, send, stopAnswer };
});
