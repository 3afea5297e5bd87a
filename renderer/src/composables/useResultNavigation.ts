/**
 * Moving through results in the job viewer: ← and → (newer, older) and, on a touch screen, a
 * swipe (right: newer, left: older), through the history as it is filtered on the history page.
 * Keys typed into a field, a zoomed (scrolling) result and an open dialog are left alone.
 */
import { computed, onBeforeUnmount, onMounted, type Ref } from 'vue';
import { useRouter } from 'vue-router';
import { useJobsStore } from '../stores/jobs.store.js';

export type Direction = 'newer' | 'older';

/** A horizontal swipe at least this long (CSS px), and flatter than steep, counts. */
const SWIPE_PX = 60;

export function useResultNavigation(promptId: Ref<string>, swipeArea: Ref<HTMLElement | null>) {
  const jobs = useJobsStore();
  const router = useRouter();
  const index = computed(() => jobs.history.findIndex((j) => j.prompt_id === promptId.value));
  const canNewer = computed(() => index.value > 0 || (index.value === 0 && jobs.page > 0));
  const canOlder = computed(() => index.value >= 0 && (index.value < jobs.history.length - 1 || jobs.hasMore));

  async function go(direction: Direction): Promise<void> {
    if (!(direction === 'newer' ? canNewer.value : canOlder.value)) return;
    const next = await jobs.neighbour(promptId.value, direction);
    if (next) await router.replace(`/jobs/${next}`);
  }

  function ignored(target: EventTarget | null): boolean {
    const el = target instanceof Element ? target : null;
    return !!el?.closest('input, textarea, select, video, [contenteditable], .frame.zoomed') || !!document.querySelector('dialog[open]');
  }

  function onKey(event: KeyboardEvent): void {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey || ignored(event.target)) return;
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
    event.preventDefault();
    void go(event.key === 'ArrowLeft' ? 'newer' : 'older');
  }

  let start: { x: number; y: number } | null = null;
  function onTouchStart(event: TouchEvent): void {
    const touch = event.touches[0];
    start = event.touches.length === 1 && touch && !ignored(event.target) ? { x: touch.clientX, y: touch.clientY } : null;
  }
  function onTouchEnd(event: TouchEvent): void {
    const touch = event.changedTouches[0];
    if (!start || !touch) return;
    const dx = touch.clientX - start.x;
    const dy = touch.clientY - start.y;
    start = null;
    if (Math.abs(dx) >= SWIPE_PX && Math.abs(dy) < Math.abs(dx) * 0.6) void go(dx > 0 ? 'newer' : 'older');
  }

  // While the viewer is open a sideways swipe is the page's, not the browser's back/forward gesture.
  let overscroll = '';
  onMounted(() => {
    overscroll = document.documentElement.style.overscrollBehaviorX;
    document.documentElement.style.overscrollBehaviorX = 'none';
    window.addEventListener('keydown', onKey);
    swipeArea.value?.addEventListener('touchstart', onTouchStart, { passive: true });
    swipeArea.value?.addEventListener('touchend', onTouchEnd, { passive: true });
    // Opened from a link or a reload: the newest page, so the neighbours are known.
    if (!jobs.history.length) void jobs.loadHistory(0);
  });
  onBeforeUnmount(() => {
    document.documentElement.style.overscrollBehaviorX = overscroll;
    window.removeEventListener('keydown', onKey);
    swipeArea.value?.removeEventListener('touchstart', onTouchStart);
    swipeArea.value?.removeEventListener('touchend', onTouchEnd);
  });

  return { canNewer, canOlder, go };
}
