/**
 * Ctrl+Enter (⌘+Enter on a Mac) runs the page's form from anywhere on the page, a text box
 * included, as in SwarmUI and InvokeAI. A modal dialog that is open keeps the keys to itself.
 */
import { onBeforeUnmount, onMounted } from 'vue';

/** Whether a key event is the run shortcut. */
export function isRunShortcut(event: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey'>): boolean {
  return event.key === 'Enter' && (event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey;
}

/** Call `run` on the run shortcut while the calling component is mounted. */
export function useRunShortcut(run: () => void): void {
  const onKey = (event: KeyboardEvent): void => {
    if (!isRunShortcut(event) || event.defaultPrevented || event.repeat) return;
    if (document.querySelector('dialog[open]')) return;
    event.preventDefault();
    run();
  };
  onMounted(() => window.addEventListener('keydown', onKey));
  onBeforeUnmount(() => window.removeEventListener('keydown', onKey));
}
