/**
 * A reactive media query (the navigation collapses on a phone).
 */
import { onBeforeUnmount, ref, type Ref } from 'vue';

/** True while the query matches. */
export function useMediaQuery(query: string): Ref<boolean> {
  const list = typeof matchMedia === 'function' ? matchMedia(query) : null;
  const matches = ref(list?.matches ?? false);
  const onChange = (event: MediaQueryListEvent) => (matches.value = event.matches);
  list?.addEventListener('change', onChange);
  onBeforeUnmount(() => list?.removeEventListener('change', onChange));
  return matches;
}
