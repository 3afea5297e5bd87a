/**
 * Short notices (an action failed, a download was queued) that never block the page.
 */
import { defineStore } from 'pinia';
import { ref } from 'vue';

export interface Toast {
  id: number;
  tone: 'info' | 'ok' | 'error';
  text: string;
}

export const useToastsStore = defineStore('toasts', () => {
  const items = ref<Toast[]>([]);
  let next = 1;

  function dismiss(id: number): void {
    items.value = items.value.filter((t) => t.id !== id);
  }

  /** Show a notice; errors stay longer so they can be read. */
  function push(tone: Toast['tone'], text: string): void {
    const id = next++;
    items.value = [...items.value.slice(-4), { id, tone, text }];
    setTimeout(() => dismiss(id), tone === 'error' ? 10_000 : 4_000);
  }

  return { items, push, dismiss };
});
