import { describe, expect, it } from 'vitest';
import { parseImageId } from '../../../renderer/src/api/modelhub-api.js';
import type { TelemetrySample } from '../../../renderer/src/api/system-api.js';
import { groupOf, navFor, navLinkOf } from '../../../renderer/src/navigation.js';
import { installLines } from '../../../renderer/src/stores/nodes.store.js';
import { presetSource } from '../../../renderer/src/stores/presets.store.js';
import { trimSamples } from '../../../renderer/src/stores/system.store.js';

describe('parseImageId', () => {
  it('reads digits and hub image links, and nothing else', () => {
    expect(parseImageId(' 5001 ')).toBe(5001);
    expect(parseImageId('https://civitai.com/images/5001?postId=3')).toBe(5001);
    expect(parseImageId('https://civitai.com/models/12')).toBeNull();
    expect(parseImageId('0')).toBeNull();
    expect(parseImageId('abc')).toBeNull();
  });
});

describe('installLines', () => {
  const line = (message: string) => ({ time: '10:00:00', at: '2026-11-28T10:00:00+01:00', message, level: 'info' as const });
  it('keeps the lines of the latest install of that URL only', () => {
    const url = 'https://git.test/a.git';
    const lines = [line(`Installing node package a from ${url}`), line('old output'), line('Installing node package b from https://git.test/b.git'), line(`Installing node package a from ${url}`), line('new output')];
    expect(installLines(lines, url).map((l) => l.message)).toEqual([`Installing node package a from ${url}`, 'new output']);
    expect(installLines(lines, 'https://git.test/c.git')).toEqual([]);
  });
});

describe('trimSamples', () => {
  it('drops samples older than the window', () => {
    const at = (iso: string) => ({ timestamp: iso }) as TelemetrySample;
    const now = Date.parse('2026-11-25T10:30:00Z');
    const kept = trimSamples([at('2026-11-25T09:59:00Z'), at('2026-11-25T10:00:30Z'), at('2026-11-25T10:29:59Z')], now);
    expect(kept.map((s) => s.timestamp)).toEqual(['2026-11-25T10:00:30Z', '2026-11-25T10:29:59Z']);
  });
});

describe('presetSource and groupOf', () => {
  it('tells the three preset sources apart', () => {
    const entry = { id: 'a', name: 'a', description: '', private: false, workflow_id: 'w', workflow_name: 'W' };
    expect(presetSource({ ...entry, source_type: 'modelhub' })).toBe('modelhub');
    expect(presetSource(entry, 'job')).toBe('job');
    expect(presetSource(entry)).toBe('hand');
  });

  it('opens the navigation group of the current page', () => {
    expect(groupOf('/run/image-filter')).toBe('create');
    expect(groupOf('/llm')).toBe('models');
    expect(groupOf('/gallery/12')).toBe('models');
    expect(groupOf('/system')).toBe('admin');
    expect(groupOf('/nowhere')).toBe('create');
  });

  it('highlights the link a page without its own is under, and lists Disk for admins', () => {
    expect(navLinkOf('/run/image-filter')).toBe('/home');
    expect(navLinkOf('/jobs/abc-123')).toBe('/jobs');
    expect(navLinkOf('/batches/7')).toBe('/batches');
    expect(navLinkOf('/setup')).toBe('/system');
    expect(navLinkOf('/workflows/txt2img/form')).toBe('/home');
    expect(groupOf('/disk')).toBe('admin');
    expect(navFor(true).flatMap((g) => g.links).some((l) => l.to === '/disk')).toBe(true);
    expect(navFor(false).flatMap((g) => g.links).some((l) => l.to === '/disk')).toBe(false);
  });
});
