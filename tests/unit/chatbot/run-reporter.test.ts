/**
 * How a result is sent (the platform's upload limits: photo 10 MB, others 50 MB) and how
 * progress reads in the chat.
 */
import { describe, expect, it } from 'vitest';
import type { ChatPlatformClient } from '../../../server/chatbot/chat-platform.client.js';
import { FILE_LIMIT_BYTES, mediaKind, PHOTO_LIMIT_BYTES, progressText, RunReporter } from '../../../server/chatbot/run-reporter.js';
import type { RunStatus, StudioApiClient } from '../../../server/chatbot/studio-api.client.js';
import { silentLogger } from '../../../server/logging.js';
import { TestClock } from '../../helpers/test-clock.js';

describe('mediaKind', () => {
  it('sends images as photos up to 10 MB, then as documents', () => {
    expect(mediaKind('image/png', 1000)).toBe('photo');
    expect(mediaKind('image/jpeg', PHOTO_LIMIT_BYTES)).toBe('photo');
    expect(mediaKind('image/png', PHOTO_LIMIT_BYTES + 1)).toBe('document');
    expect(mediaKind('image/gif', 1000)).toBe('document');
  });

  it('sends videos as videos up to 50 MB; nothing above 50 MB', () => {
    expect(mediaKind('video/mp4', FILE_LIMIT_BYTES)).toBe('video');
    expect(mediaKind('video/webm', 10)).toBe('video');
    expect(mediaKind('video/mp4', FILE_LIMIT_BYTES + 1)).toBeNull();
    expect(mediaKind('application/octet-stream', FILE_LIMIT_BYTES + 1)).toBeNull();
    expect(mediaKind('application/octet-stream', 10)).toBe('document');
  });
});

describe('progressText', () => {
  it('shows the queue position while pending', () => {
    expect(progressText('Fox', { status: 'pending', queue_position: 2 })).toBe('⏳ Fox: waiting in the queue (position 2)');
    expect(progressText('Fox', { status: 'pending', queue_position: null })).toBe('⏳ Fox: waiting in the queue');
  });

  it('shows a bar, the node, the step and the time left while running', () => {
    expect(progressText('Fox', { status: 'running', percent: 47, step: 5, total_steps: 10, node_title: 'KSampler', eta_seconds: 3.2 })).toBe(
      '🎨 Fox: ▓▓▓▓▓░░░░░ 47% · KSampler · step 5/10 · about 4 s left',
    );
    expect(progressText('Fox', { status: 'running', percent: 0 })).toBe('🎨 Fox: ░░░░░░░░░░ 0%');
  });
});

describe('the progress message throttle', () => {
  /**
   * A run whose status changes at every poll: the reporter may edit at most once per minEditMs of
   * its clock, and waits out the rest before the final edit. The clock is a TestClock, so the edit
   * times are the reporter's own and the waits are the ones it asked for.
   */
  it('edits at most once per minEditMs, never to the same text, and waits before the final edit', async () => {
    const clock = new TestClock();
    const edits: Array<{ text: string; at: number }> = [];
    let sentAt = 0;
    const platform = {
      sendMessage: async () => {
        sentAt = clock.now();
        return 1;
      },
      editMessageText: async (_chat: number, _id: number, text: string) => void edits.push({ text, at: clock.now() }),
    };
    // 11 polls running (at 6000 the text shown at 3000 again), then an error.
    const statuses: RunStatus[] = [0, 10, 20, 30, 40, 50, 30, 60, 70, 80, 90].map((percent) => ({ status: 'running', percent }));
    statuses.push({ status: 'error', error: 'boom' });
    const studio = { status: async () => statuses.shift()! };
    const abort = new AbortController();
    const reporter = new RunReporter({
      platform: platform as unknown as ChatPlatformClient,
      studio: studio as unknown as StudioApiClient,
      signal: abort.signal,
      logger: silentLogger,
      pollMs: 1000,
      minEditMs: 3000,
      clock,
    });
    reporter.follow(7, 'Fox', 'p1');
    await reporter.drain();

    // Polls 1000 apart on the reporter's clock: an edit at 3000; none at 6000 (the same text), so
    // the next at 7000; then 10 000; the error polled at 11 000 waits 2000 more for its edit.
    expect(edits.map((e) => e.at - sentAt)).toEqual([3000, 7000, 10_000, 13_000]);
    expect(edits.map((e) => e.text)).toEqual([
      '🎨 Fox: ▓▓▓░░░░░░░ 30%',
      '🎨 Fox: ▓▓▓▓▓▓░░░░ 60%',
      '🎨 Fox: ▓▓▓▓▓▓▓▓▓░ 90%',
      '❌ Fox failed: boom',
    ]);
    expect(clock.sleeps).toEqual([...Array.from({ length: 11 }, () => 1000), 2000]);
  });
});
