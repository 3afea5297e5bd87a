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

  async function refresh(): Promise<void> {
    try {
      const [s, env, who] = await Promise.all([api.status(), system.envSettings(), api.chats()]);
      status.value = s;
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

  /** Take a chat admitted with `/key` off the list: it must send the key again. */
  async function removeChat(id: number): Promise<void> {
    await api.removeChat(id);
    chats.value = await api.chats();
    status.value = await api.status();
  }

  return { status, settings, chats, lastResult, error, libraryError, refresh, start, stop, save, removeChat };
});
