/**
 * The chat bot: its status, start and stop, its two settings (token and name), which live
 * with the environment settings (a change restarts a running bot), and the chats that may use it.
 */
import { defineStore } from 'pinia';
import { computed, onScopeDispose, ref } from 'vue';
import { ChatbotApi, type ChatbotChatsBody, type ChatbotStatusBody } from '../api/chatbot-api.js';
import { useClient } from '../api/context.js';
import { SystemApi, type EnvEntry } from '../api/system-api.js';

const BOT_KEYS = ['CHATBOT_BOT_TOKEN', 'CHATBOT_BOT_NAME', 'CHATBOT_ALLOWED_CHATS'] as const;
const SAYS_RUNNING = new Set(['started', 'already running']);

/** Whether the answer of the last start/stop still describes a bot that is (not) running. */
export function resultAgrees(result: string, running: boolean): boolean {
  return SAYS_RUNNING.has(result) === running;
}

export const useChatbotStore = defineStore('chatbot', () => {
  const client = useClient();
  const http = client.api.http;
  const api = new ChatbotApi(http);
  const system = new SystemApi(http);
  const status = ref<ChatbotStatusBody | null>(null);
  const settings = ref<EnvEntry[]>([]);
  const chats = ref<ChatbotChatsBody | null>(null);
  const lastResult = ref<string | null>(null);
  const error = ref<string | null>(null);

  const libraryError = computed(() => (status.value && 'error' in status.value ? status.value.error : null));
  const tokenSet = computed(() => settings.value.find((v) => v.key === 'CHATBOT_BOT_TOKEN')?.set ?? false);

  /** A new status: the last action's answer goes once it no longer matches (started elsewhere, stopped by the platform). */
  function setStatus(next: ChatbotStatusBody): void {
    status.value = next;
    if (lastResult.value && !resultAgrees(lastResult.value, next.running)) lastResult.value = null;
  }

  async function refresh(): Promise<void> {
    try {
      const [s, env, who] = await Promise.all([api.status(), system.envSettings(), api.chats()]);
      setStatus(s);
      chats.value = who;
      settings.value = env.groups.flatMap((g) => g.vars).filter((v) => (BOT_KEYS as readonly string[]).includes(v.key));
      error.value = null;
    } catch (err) {
      error.value = err instanceof Error ? err.message : String(err);
    }
  }

  // A chat admitted or removed, the bot started or stopped elsewhere: show it without a reload.
  onScopeDispose(
    client.socket.on('event', (event) => {
      if (event.type.startsWith('chatbot.')) void refresh();
    }),
  );

  async function start(): Promise<string> {
    lastResult.value = (await api.start()).result;
    setStatus(await api.status());
    return lastResult.value;
  }

  async function stop(): Promise<string> {
    lastResult.value = (await api.stop()).result;
    setStatus(await api.status());
    return lastResult.value;
  }

  /** Save the token or the name; a running bot restarts with it. */
  async function save(key: string, value: string): Promise<void> {
    await system.setEnv(key, value);
    // "no token configured" (or any earlier answer) says nothing about the new token.
    if (key === 'CHATBOT_BOT_TOKEN') lastResult.value = null;
    await refresh();
  }

  /** Take a chat admitted with `/key` off the list: it must send the key again. */
  async function removeChat(id: number): Promise<void> {
    await api.removeChat(id);
    chats.value = await api.chats();
    setStatus(await api.status());
  }

  return { status, settings, chats, lastResult, error, libraryError, tokenSet, refresh, start, stop, save, removeChat };
});
