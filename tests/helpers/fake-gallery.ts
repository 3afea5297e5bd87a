/**
 * A model with a gallery on the fake hub: model 12 with two version images (`original`) and five
 * community images paged two at a time (a PNG, a JPEG, a video, one without `meta`, one whose
 * media the CDN has lost), media served by the fake hub itself.
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { imageItem } from './fake-hub-data.js';
import type { FakeHub } from './fake-hub-server.js';

/** The gallery model's id. */
export const GALLERY_MODEL = '12';

/** A small JPEG or PNG of the given colour. */
export function testImage(format: 'jpeg' | 'png', colour: string, width = 64, height = 48): Promise<Buffer> {
  const img = sharp({ create: { width, height, channels: 3, background: colour } });
  return format === 'jpeg' ? img.jpeg().toBuffer() : img.png().toBuffer();
}

/** Put model 12's gallery into `hub`; returns the media bytes by image id. */
export async function seedGallery(hub: FakeHub, root: string): Promise<Map<number, Buffer>> {
  const media = new Map<number, Buffer>();
  const add = (id: number, name: string, body: Buffer, type: string) => {
    hub.media.set(name, { body, type });
    media.set(id, body);
    return `${hub.url}/media/${name}`;
  };
  const originals = [
    imageItem(7001, { url: add(7001, '7001.jpeg', await testImage('jpeg', '#c33'), 'image/jpeg'), createdAt: '2025-05-01T10:00:00.000Z', modelVersionIds: undefined }),
    imageItem(7002, { url: add(7002, '7002.png', await testImage('png', '#3c3'), 'image/png'), createdAt: '2025-05-02T10:00:00.000Z', modelVersionIds: undefined, tags: [{ id: 11, name: 'carried' }] }),
  ];
  hub.models.set(GALLERY_MODEL, { id: 12, name: 'Detail Tweaker', type: 'LORA', tags: [], modelVersions: [{ id: 102, name: 'v1.0', images: originals }] });
  const video = fs.readFileSync(path.join(root, 'resources', 'standin', 'video.mp4'));
  hub.modelImages.set(GALLERY_MODEL, [
    imageItem(8001, { url: add(8001, '8001.jpeg', await testImage('jpeg', '#33c'), 'image/jpeg'), createdAt: '2025-08-05T10:00:00.000Z', tags: [7, 8], meta: { prompt: 'a fox <lora:add_detail:0.5>', seed: 1 } }),
    imageItem(8002, { url: add(8002, '8002.png', await testImage('png', '#cc3'), 'image/png'), createdAt: '2025-08-04T10:00:00.000Z', tags: [8, 9], meta: null }),
    // Served with a JPEG-looking name, as the hub has done for videos.
    imageItem(8003, { type: 'video', url: add(8003, '8003.jpeg', video, 'video/mp4'), createdAt: '2025-08-03T10:00:00.000Z', meta: { prompt: 'waves', workflow: 'txt2vid' } }),
    imageItem(8004, { url: add(8004, '8004.jpeg', await testImage('jpeg', '#3cc'), 'image/jpeg'), createdAt: '2025-08-02T10:00:00.000Z', tagIds: [10] }),
    imageItem(8005, { url: `${hub.url}/media/lost.jpeg`, createdAt: '2025-08-01T10:00:00.000Z' }),
  ]);
  hub.maxPageSize = 2;
  return media;
}
