/**
 * `Content-Disposition` values for files Studio serves. Header values must be Latin-1 (Node
 * throws otherwise), so a name outside printable ASCII gets an ASCII fallback plus the RFC 6266
 * `filename*` form that every browser reads.
 */

/** `inline` (shown in the browser) or `attachment` (saved) with `name`. */
export function contentDisposition(kind: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  if (ascii === name) return `${kind}; filename="${ascii}"`;
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeRfc5987(name)}`;
}

function encodeRfc5987(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
