/**
 * ffmpeg only ever sees local files that start like a video: a playlist named `.mp4` (which could
 * make ffmpeg read other files or reach the network) never starts it, and a real video is opened
 * with `-protocol_whitelist file`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Thumbnails } from '../../../server/assets/thumbnails.js';
import { silentLogger } from '../../../server/logging.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-ffmpeg-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A stand-in ffmpeg that records its arguments and fails (no frame needed for this test). */
function recordingFfmpeg(): { bin: string; calls: () => string[] } {
  const log = path.join(dir, 'calls.log');
  const bin = path.join(dir, 'ffmpeg');
  fs.writeFileSync(bin, `#!/bin/sh\necho "$@" >> "${log}"\nexit 1\n`, { mode: 0o755 });
  return { bin, calls: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : []) };
}

describe('video thumbnails', () => {
  it('never starts ffmpeg for a playlist named .mp4, and whitelists the file protocol for a real one', async () => {
    const ffmpeg = recordingFfmpeg();
    const thumbs = new Thumbnails({ cacheDir: path.join(dir, 'cache'), logger: silentLogger, ffmpegPath: ffmpeg.bin, env: { PATH: process.env.PATH } });
    const playlist = path.join(dir, 'evil.mp4');
    fs.writeFileSync(playlist, '#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:1,\nfile:///etc/passwd\n');
    await expect(thumbs.get('outputs', playlist, 'evil.mp4')).rejects.toThrow(/not a video/);
    expect(ffmpeg.calls()).toEqual([]);

    const video = path.join(dir, 'real.mp4');
    fs.writeFileSync(video, Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.alloc(64)]));
    await expect(thumbs.get('outputs', video, 'real.mp4')).rejects.toThrow();
    const [call] = ffmpeg.calls();
    expect(call).toContain('-protocol_whitelist file');
    expect(call).toContain(`-i file:${video}`);
    thumbs.stop();
  });
});
