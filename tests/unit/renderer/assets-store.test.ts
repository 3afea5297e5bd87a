import { afterEach, describe, expect, it } from 'vitest';
import { useAssetsStore } from '../../../renderer/src/stores/assets.store.js';
import { harness, Reply, type Harness } from './harness.js';

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

describe('assets store: why a thumbnail is missing', () => {
  it('says a video needs ffmpeg when the server has none, instead of leaving an empty box', async () => {
    // What server/assets/thumbnails.ts answers for a video while ffmpeg is missing.
    h = await harness({ 'GET /api/admin/assets/thumbnail': () => new Reply(404, { detail: 'Video thumbnails need ffmpeg, which is not installed' }) });
    const why = await useAssetsStore().thumbnailProblem('outputs', 'job/final/clip.mp4');
    expect(why).toBe('No preview: video thumbnails need ffmpeg on the Studio machine.');
  });

  it('says the files were deleted when the thumbnail is simply gone', async () => {
    h = await harness({ 'GET /api/admin/assets/thumbnail': () => new Reply(404, { detail: 'Not found' }) });
    expect(await useAssetsStore().thumbnailProblem('outputs', 'job/final/a.png')).toBe('The files of this job were deleted.');
  });
});
