/**
 * The stand-in's multipart parser against bodies encoded by the platform's own FormData encoder.
 */
import { describe, expect, it } from 'vitest';
import { multipartBoundary, parseMultipart } from '../../../server/standin/multipart.parser.js';

async function encode(form: FormData): Promise<{ body: Buffer; contentType: string }> {
  const request = new Request('http://localhost/upload', { method: 'POST', body: form });
  return { body: Buffer.from(await request.arrayBuffer()), contentType: request.headers.get('content-type') ?? '' };
}

describe('stand-in multipart parser', () => {
  it('reads fields and binary files byte for byte', async () => {
    // Bytes that look like line breaks and dashes must survive.
    const bytes = Buffer.from([0x89, 0x50, 0x0d, 0x0a, 0x2d, 0x2d, 0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0xff]);
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'pic.png');
    form.append('subfolder', 'a/b');
    form.append('overwrite', 'true');
    const { body, contentType } = await encode(form);
    const boundary = multipartBoundary(contentType);
    expect(boundary).not.toBeNull();
    const parsed = parseMultipart(body, boundary as string);
    expect(parsed.fields).toEqual({ subfolder: 'a/b', overwrite: 'true' });
    expect(parsed.files.image?.filename).toBe('pic.png');
    expect(parsed.files.image?.contentType).toBe('image/png');
    expect(parsed.files.image?.data.equals(bytes)).toBe(true);
  });

  it('keeps non-ASCII file names and empty files', async () => {
    const form = new FormData();
    form.append('image', new Blob([]), 'ritratto è.png');
    const { body, contentType } = await encode(form);
    const parsed = parseMultipart(body, multipartBoundary(contentType) as string);
    expect(parsed.files.image?.filename).toBe('ritratto è.png');
    expect(parsed.files.image?.data.length).toBe(0);
  });

  it('rejects content types that are not multipart', () => {
    expect(multipartBoundary('application/json')).toBeNull();
    expect(multipartBoundary(undefined)).toBeNull();
    expect(multipartBoundary('multipart/form-data; boundary="abc def"')).toBe('abc def');
  });
});
