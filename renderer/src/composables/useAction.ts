/**
 * Run a user action without blocking the page: a busy flag for its button, and a toast with
 * the error in words when it fails.
 */
import { ref, type Ref } from 'vue';
import { errorText } from '../lib/errors.js';
import { useToastsStore } from '../stores/toasts.store.js';

export interface Action<A extends unknown[], R> {
  busy: Ref<boolean>;
  run: (...args: A) => Promise<R | undefined>;
}

/** Wrap `work`; `run` never throws (failures become a toast) and resolves undefined on failure. */
export function useAction<A extends unknown[], R>(work: (...args: A) => Promise<R>, success?: (result: R) => string | null): Action<A, R> {
  const toasts = useToastsStore();
  const busy = ref(false);
  async function run(...args: A): Promise<R | undefined> {
    busy.value = true;
    try {
      const result = await work(...args);
      const text = success?.(result);
      if (text) toasts.push('ok', text);
      return result;
    } catch (err) {
      toasts.push('error', errorText(err));
      return undefined;
    } finally {
      busy.value = false;
    }
  }
  return { busy, run };
}
