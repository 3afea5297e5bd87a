/**
 * The chat bot: its status, start and stop, and its two settings (token and name), which live
 * with the environment settings (a change restarts a running bot).
 */
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { ChatbotApi, type ChatbotStatusBody } from '../api/chatbot-api.js';
import { useClient } from '../api/context.js';
import { SystemApi, type EnvEntry } from '../api/system-api.js';

export const BOT_KEYS = ['CHATBOT_BOT_TOKEN', 'CHATBOT_BOT_NAME', 'CHATBOT_ALLOWED_CHATS'] as const;

export const useChatbotStore = defineStore('chatbot', () => {
  const http = useClient().api.http;
  const api = new ChatbotApi(http);
  const system = new SystemApi(http);
  const status = ref<ChatbotStatusBody | null>(null);
  const settings = ref<EnvEntry[]>([]);
  const lastResult = ref<string | null>(null);
  const error = ref<string | null>(null);

  const libraryError = computed(() => (status.value && 'error' in status.value ? status.value.error : null));

  async function refresh(): Promise<void> {
    try {
      const [s, env] = await Promise.all([api.status(), system.envSettings()]);
      status.value = s;
      settings.value = env.groups.flatMap((g) => g.vars).filter((v) => (BOT_KEYS as readonly string[]).includes(v.key));
      error.value = null;
    } catch (err) {
      error.value = err instanceof Error ? err.message : String(err);
    }
  }

  async function start(): Promise<string> {
    lastResult.value = (await api.start()).result;
    status.value = await api.status();
    return lastResult.value;
  }

  async function stop(): Promise<string> {
    lastResult.value = (await api.stop()).result;
    status.value = await api.status();
    return lastResult.value;
  }

  /** Save the token or the name; a running bot restarts with it. */
  async function save(key: string, value: string): Promise<void> {
    await system.setEnv(key, value);
    await refresh();
  }

  return { status, settings, lastResult, error, libraryError, refresh, start, stop, save };
});
