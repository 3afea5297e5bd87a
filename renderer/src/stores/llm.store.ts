/**
 * The LLM: its model catalog, the server (status, start with a configuration, stop, save the
 * configuration) and kept chats (stored by Studio with their model and settings) that stream
 * answers token by token; each exchange is saved once its answer is complete (or stopped).
 */
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { useClient } from '../api/context.js';
import { LlmApi, type ChatDetail, type ChatSummary, type ChatUsage, type FitView, type LlmCatalog, type LlmConfig, type LlmStatus } from '../api/llm-api.js';

/** The chat on screen: a kept chat with its messages, and the usage of its last answer. */
export interface Chat extends ChatDetail {
  usage: ChatUsage | null;
}

export const useLlmStore = defineStore('llm', () => {
  const api = new LlmApi(useClient().api.http);
  const catalog = ref<LlmCatalog | null>(null);
  const status = ref<LlmStatus | null>(null);
  const error = ref<string | null>(null);
  const chats = ref<ChatSummary[]>([]);
  const activeChat = ref<Chat | null>(null);
  const fit = ref<FitView | null>(null);
  const streaming = ref(false);
  let controller: AbortController | null = null;

  const presentModels = computed(() => catalog.value?.categories.flatMap((c) => c.models).filter((m) => m.status === 'present') ?? []);
  const activeId = computed({
    get: () => activeChat.value?.id ?? null,
    set: (id: string | null) => void open(id),
  });

  async function refresh(): Promise<void> {
    try {
      const [c, s, list, f] = await Promise.all([api.catalog(), api.status(), api.chats(), api.fit().catch(() => null)]);
      catalog.value = c;
      status.value = s;
      chats.value = list.chats;
      fit.value = f;
      // The page opens on the most recent chat.
      if (!activeChat.value && list.chats[0] && !streaming.value) await open(list.chats[0].id);
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

  /** Show a kept chat. */
  async function open(id: string | null): Promise<void> {
    if (streaming.value) return;
    activeChat.value = id ? { ...(await api.chat(id)), usage: null } : null;
  }

  /** A new, empty chat for the running model, its sampling starting from the server's configuration. */
  async function newChat(): Promise<Chat> {
    const cfg = status.value?.config;
    const created = await api.createChat({ model: status.value?.active_model ?? null, settings: { temperature: cfg?.temp, top_p: cfg?.top_p, top_k: cfg?.top_k, repeat_penalty: cfg?.repeat_penalty, max_tokens: 512 } });
    activeChat.value = { ...created, usage: null };
    chats.value = [created, ...chats.value];
    return activeChat.value;
  }

  async function rename(id: string, title: string): Promise<void> {
    const updated = await api.updateChat(id, { title });
    if (activeChat.value?.id === id) activeChat.value.title = updated.title;
    chats.value = (await api.chats()).chats;
  }

  async function removeChat(id: string): Promise<void> {
    await api.deleteChat(id);
    chats.value = (await api.chats()).chats;
    if (activeChat.value?.id === id) await open(chats.value[0]?.id ?? null);
  }

  const exportUrl = (id: string, format: 'md' | 'json') => api.exportUrl(id, format);

  /** Send a user message in the active chat, stream the answer into it, then keep both. */
  async function send(text: string): Promise<void> {
    if (!activeChat.value) await newChat();
    // Through the store's reactive proxy so each delta re-renders.
    const chat = activeChat.value!;
    const model = status.value?.active_model ?? chat.model;
    await api.updateChat(chat.id, { settings: chat.settings, model });
    const now = new Date().toISOString();
    chat.messages.push({ role: 'user', content: text, created_at: now });
    const history = [
      ...(chat.settings.system ? [{ role: 'system' as const, content: chat.settings.system }] : []),
      ...chat.messages.map((m) => ({ role: m.role, content: m.content })),
    ];
    chat.messages.push({ role: 'assistant', content: '', created_at: now });
    const answer = chat.messages[chat.messages.length - 1]!;
    controller = new AbortController();
    streaming.value = true;
    const { system: _system, ...sampling } = chat.settings;
    try {
      chat.usage = await api.chatStream(history, sampling, (delta) => (answer.content += delta), controller.signal);
    } catch (err) {
      if (!answer.content) chat.messages.pop();
      throw err;
    } finally {
      streaming.value = false;
      controller = null;
      const kept = answer.content ? [{ role: 'user' as const, content: text }, { role: 'assistant' as const, content: answer.content }] : [{ role: 'user' as const, content: text }];
      const saved = await api.appendMessages(chat.id, kept).catch(() => null);
      if (saved) chat.title = saved.title;
      chats.value = (await api.chats().catch(() => ({ chats: chats.value }))).chats;
    }
  }

  /** Stop the answer being streamed (what arrived stays). */
  function stopAnswer(): void {
    controller?.abort();
  }

  return { catalog, status, error, chats, activeId, activeChat, fit, streaming, presentModels, refresh, download, remove, start, stop, saveConfig, open, newChat, rename, removeChat, exportUrl, send, stopAnswer };
});
