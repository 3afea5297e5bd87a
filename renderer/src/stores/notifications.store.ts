/**
 * Opt-in browser notifications: when a job finishes or fails while the tab is hidden, the browser
 * shows a notification that opens the job's page. Off until the user turns it on (and the browser
 * allows it); the choice is kept in this browser only.
 */
import { defineStore } from 'pinia';
import { onScopeDispose, ref } from 'vue';
import { useClient } from '../api/context.js';
import type { JobRecord } from '../api/types.js';

const KEY = 'studio.notify-jobs';

/** What the notification says about a finished job. */
function jobNotice(job: JobRecord): { title: string; body: string } {
  const name = job.workflow_name ?? job.workflow_id ?? 'A job';
  if (job.status === 'completed') return { title: `${name} finished`, body: job.duration ? `Done in ${job.duration} s. Open Studio to see the result.` : 'Open Studio to see the result.' };
  return { title: `${name} failed`, body: job.error ? job.error.slice(0, 160) : 'Open Studio to see why.' };
}

export const useNotificationsStore = defineStore('notifications', () => {
  const { socket } = useClient();
  const supported = typeof Notification === 'function';
  const permission = ref<NotificationPermission | 'unsupported'>(supported ? Notification.permission : 'unsupported');
  const enabled = ref(supported && localStorage.getItem(KEY) === '1' && Notification.permission === 'granted');
  /** Where a clicked notification takes the page (the app's router listens). */
  const opened = ref<string | null>(null);

  function notify(job: JobRecord): void {
    if (!enabled.value || document.visibilityState !== 'hidden' || permission.value !== 'granted') return;
    const { title, body } = jobNotice(job);
    const note = new Notification(title, { body, tag: job.prompt_id, icon: '/static/icons/studio-192.png' });
    note.onclick = () => {
      window.focus();
      opened.value = `/jobs/${job.prompt_id}`;
      note.close();
    };
  }

  /** Turn notifications on (asking the browser first) or off. */
  async function setEnabled(on: boolean): Promise<void> {
    if (!supported) return;
    if (on && Notification.permission === 'default') permission.value = await Notification.requestPermission();
    else permission.value = Notification.permission;
    enabled.value = on && permission.value === 'granted';
    localStorage.setItem(KEY, enabled.value ? '1' : '0');
  }

  const offs = [socket.on('job.completed', notify), socket.on('job.failed', notify), socket.on('job.stalled', notify)];
  onScopeDispose(() => offs.forEach((off) => off()));

  return { supported, permission, enabled, opened, setEnabled };
});
