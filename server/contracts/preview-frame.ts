/**
 * The Studio WebSocket's binary frame for a live preview image, encoded by the server and decoded
 * by the renderer with this one codec: `[u32 BE type=1][u32 BE n][n bytes JSON PreviewMeta][image]`.
 * Plain `Uint8Array`/`DataView`/`TextEncoder`, so it runs in Node and in the browser alike.
 */

/** The JSON header of a binary preview frame. */
export interface PreviewMeta {
  prompt_id: string | null;
  node_id: string | null;
  image_type: string;
}

/** A decoded preview frame: its header and the image bytes (a view into the frame). */
export interface PreviewFrame {
  meta: PreviewMeta;
  image: Uint8Array;
}

/** Binary frame type of a preview image (the first word of the frame). */
export const PREVIEW_FRAME = 1;

const HEADER_BYTES = 8;

/** One binary frame carrying `image` with its header. */
export function encodePreviewFrame(meta: PreviewMeta, image: Uint8Array): Uint8Array {
  const head = encodePreviewHead(meta);
  const frame = new Uint8Array(head.length + image.length);
  frame.set(head);
  frame.set(image, head.length);
  return frame;
}

/**
 * The frame's bytes before the image (type, length, JSON header): the server sends this and the
 * image as parts of one WebSocket frame, so a preview of megabytes is copied once, into that frame.
 */
export function encodePreviewHead(meta: PreviewMeta): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(meta));
  const head = new Uint8Array(HEADER_BYTES + json.length);
  const view = new DataView(head.buffer);
  view.setUint32(0, PREVIEW_FRAME);
  view.setUint32(4, json.length);
  head.set(json, HEADER_BYTES);
  return head;
}

/** The header and image of a preview frame; null for a frame of another type or a malformed one. */
export function decodePreviewFrame(frame: ArrayBuffer | Uint8Array): PreviewFrame | null {
  const bytes = frame instanceof Uint8Array ? frame : new Uint8Array(frame);
  if (bytes.byteLength < HEADER_BYTES) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0) !== PREVIEW_FRAME) return null;
  const length = view.getUint32(4);
  if (HEADER_BYTES + length > bytes.byteLength) return null;
  try {
    const meta = JSON.parse(new TextDecoder().decode(bytes.subarray(HEADER_BYTES, HEADER_BYTES + length))) as PreviewMeta;
    return { meta, image: bytes.subarray(HEADER_BYTES + length) };
  } catch {
    return null;
  }
}
