/**
 * A small multipart/form-data parser for `/upload/image` (whole body in memory; the engine caps
 * uploads at 100 MB anyway, so streaming would buy nothing here).
 */

export interface MultipartFile {
  filename: string;
  contentType: string;
  data: Buffer;
}

export interface MultipartForm {
  fields: Record<string, string>;
  files: Record<string, MultipartFile>;
}

/** The boundary of a `multipart/form-data` content type, or null for anything else. */
export function multipartBoundary(contentType: string | undefined): string | null {
  if (!contentType || !/^multipart\/form-data/i.test(contentType)) return null;
  const match = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return match ? (match[1] ?? match[2] ?? null) : null;
}

/** Split a body into text fields and file parts (the first part of each name wins). */
export function parseMultipart(body: Buffer, boundary: string): MultipartForm {
  const form: MultipartForm = { fields: {}, files: {} };
  const delimiter = Buffer.from(`--${boundary}`);
  let start = body.indexOf(delimiter);
  while (start !== -1) {
    const afterDelimiter = start + delimiter.length;
    // `--boundary--` closes the body.
    if (body.subarray(afterDelimiter, afterDelimiter + 2).toString() === '--') break;
    const next = body.indexOf(delimiter, afterDelimiter);
    if (next === -1) break;
    const part = body.subarray(skipLineBreak(body, afterDelimiter), stripLineBreak(body, next));
    addPart(form, part);
    start = next;
  }
  return form;
}

function addPart(form: MultipartForm, part: Buffer): void {
  const headerEnd = part.indexOf('\r\n\r\n');
  if (headerEnd === -1) return;
  const headers = part.subarray(0, headerEnd).toString('utf8').split('\r\n');
  const data = part.subarray(headerEnd + 4);
  let name: string | null = null;
  let filename: string | null = null;
  let contentType = 'application/octet-stream';
  for (const header of headers) {
    const colon = header.indexOf(':');
    if (colon === -1) continue;
    const key = header.slice(0, colon).trim().toLowerCase();
    const value = header.slice(colon + 1).trim();
    if (key === 'content-type') contentType = value;
    if (key !== 'content-disposition') continue;
    name = dispositionParam(value, 'name');
    filename = dispositionParam(value, 'filename');
  }
  if (name === null) return;
  if (filename !== null) {
    form.files[name] ??= { filename, contentType, data: Buffer.from(data) };
  } else {
    form.fields[name] ??= data.toString('utf8');
  }
}

function dispositionParam(header: string, param: string): string | null {
  const star = new RegExp(`(?:^|;)\\s*${param}\\*=(?:UTF-8|utf-8)''([^;]+)`).exec(header);
  if (star?.[1]) return decodeURIComponent(star[1]);
  const quoted = new RegExp(`(?:^|;)\\s*${param}="((?:[^"\\\\]|\\\\.)*)"`).exec(header);
  if (quoted) return (quoted[1] ?? '').replace(/\\(.)/g, '$1');
  const bare = new RegExp(`(?:^|;)\\s*${param}=([^;]*)`).exec(header);
  return bare ? (bare[1] ?? '').trim() : null;
}

function skipLineBreak(body: Buffer, at: number): number {
  return body[at] === 0x0d && body[at + 1] === 0x0a ? at + 2 : at;
}

function stripLineBreak(body: Buffer, at: number): number {
  return body[at - 2] === 0x0d && body[at - 1] === 0x0a ? at - 2 : at;
}
