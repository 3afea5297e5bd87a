/**
 * How a result is sent (the platform's upload limits: photo 10 MB, others 50 MB) and how
 * progress reads in the chat.
 */
import { describe, expect, it } from 'vitest';
import { FILE_LIMIT_BYTES, mediaKind, PHOTO_LIMIT_BYTES, progressText } from '../../../server/chatbot/run-reporter.js';

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
