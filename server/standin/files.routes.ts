/**
 * `POST /upload/image` and `GET /view`, with the engine's naming and path rules:
 * clash → `name (1).png` unless the bytes are identical, traversal → 400,
 * a subfolder escaping its folder → 403, missing file → 404.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import express, { type Request, type Response, type Router } from 'express';
import multer from 'multer';
import sharp from 'sharp';
import type { Logger } from '../logging.js';
import { isInside } from '../http/contained-path.js';
import { dirByType, pyNormpath, type EngineDirs } from '../engine/engine-paths.js';
import { resolveViewFile, viewContentType } from '../engine/view-file.js';
import { MAX_UPLOAD_BYTES, methodNotAllowed } from './http.util.js';

export interface FileRouteDeps {
  dirs: EngineDirs;
  logger: Logger;
}

/**
 * The form of `/upload/image`, in memory (the engine caps uploads at 100 MB). File names are
 * read as UTF-8 and kept whole, `../` included: the engine refuses those itself (400).
 */
const form = multer({ storage: multer.memoryStorage(), limits: { fileSize: MAX_UPLOAD_BYTES }, preservePath: true, defParamCharset: 'utf8' }).any();

/** Upload and view routes. */
export function fileRoutes(deps: FileRouteDeps): Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  router.route('/upload/image').post(form, (req, res) => upload(deps, req, res)).all(methodNotAllowed);
  router.route('/view').get((req, res) => view(deps, req, res)).all(methodNotAllowed);
  return router;
}

function upload(deps: FileRouteDeps, req: Request, res: Response): void {
  // The first part of each name counts, as in the engine.
  const image = (Array.isArray(req.files) ? req.files : []).find((file) => file.fieldname === 'image');
  const field = (name: string): string | undefined => {
    const value = (req.body as Record<string, string | string[]> | undefined)?.[name];
    return Array.isArray(value) ? value[0] : value;
  };
  if (!image || image.originalname === '') return void res.status(400).end();
  const type = field('type') ?? 'input';
  const dir = dirByType(deps.dirs, type);
  // The engine has no branch for other types and fails with a 500.
  if (!dir) throw new TypeError(`unknown upload type ${type}`);
  const subfolder = field('subfolder') ?? '';
  const folder = path.join(dir, pyNormpath(subfolder));
  let filename = image.originalname;
  let filepath = path.resolve(folder, filename);
  if (!isInside(dir, filepath)) return void res.status(400).end();
  fs.mkdirSync(folder, { recursive: true });

  const overwrite = field('overwrite') === 'true' || field('overwrite') === '1';
  let duplicate = false;
  if (!overwrite) {
    const ext = path.extname(filename);
    const stem = filename.slice(0, filename.length - ext.length);
    for (let i = 1; fs.existsSync(filepath); i += 1) {
      // Same bytes under the same name: reuse it instead of piling up copies (engine fix #3465).
      if (sameContent(filepath, image.buffer)) {
        duplicate = true;
        break;
      }
      filename = `${stem} (${i})${ext}`;
      filepath = path.join(folder, filename);
    }
  }
  if (!duplicate) fs.writeFileSync(filepath, image.buffer);
  deps.logger.debug(`stand-in: upload ${type}/${subfolder}/${filename}${duplicate ? ' (same bytes, reused)' : ''}`);
  res.json({ name: filename, subfolder, type });
}

async function view(deps: FileRouteDeps, req: Request, res: Response): Promise<void> {
  const query = new URL(req.originalUrl, 'http://localhost').searchParams;
  const filename = query.get('filename');
  if (filename === null) return void res.status(404).end();
  const target = resolveViewFile(deps.dirs, { filename, type: query.get('type') ?? 'output', subfolder: query.get('subfolder') });
  if ('status' in target) return void res.status(target.status).end();
  const stat = fs.statSync(target.file, { throwIfNoEntry: false, bigint: true });
  if (!stat?.isFile()) return void res.status(404).end();
  const name = path.basename(target.file);
  const converted = await convertedImage(target.file, query.get('preview'), query.get('channel'));
  if (converted) {
    res.writeHead(200, { 'Content-Type': converted.type, 'Content-Disposition': contentDisposition(name), 'Content-Length': converted.bytes.length });
    res.end(converted.bytes);
    return;
  }
  // Like aiohttp's FileResponse: its ETag (mtime in ns, size) and Last-Modified; a 304 keeps the
  // content headers (Express would drop them); one byte range is Express's (206, or an empty 416).
  const etag = `"${stat.mtimeNs.toString(16)}-${stat.size.toString(16)}"`;
  res.setHeader('Content-Type', viewContentType(name));
  res.setHeader('Content-Disposition', contentDisposition(name));
  res.setHeader('ETag', etag);
  res.setHeader('Last-Modified', new Date(Number(stat.mtimeMs)).toUTCString());
  if (req.headers['if-none-match'] === etag) return void res.status(304).end();
  res.sendFile(target.file, { dotfiles: 'allow', cacheControl: false, etag: false }, (err) => {
    if (!err) return;
    if (!res.headersSent && (err as { status?: number }).status === 416) return void res.status(416).end();
    deps.logger.debug(`stand-in: /view ${name}: ${err.message}`);
    if (!res.headersSent) res.status(404).end();
  });
}

/**
 * The engine's `/view` image conversions (PIL there, sharp here): `preview=<webp|jpeg>;<quality>`
 * (webp whenever the channel asks for alpha), `channel=rgb` (alpha dropped, PNG) and `channel=a`
 * (the alpha as the alpha of a black RGBA PNG; opaque when the image has none). Null: send as stored.
 * A file that is not an image throws, which the engine answers with a 500 too.
 */
async function convertedImage(file: string, preview: string | null, channel: string | null): Promise<{ type: string; bytes: Buffer } | null> {
  if (preview !== null) {
    const parts = preview.split(';');
    const format = ['webp', 'jpeg'].includes(parts[0] ?? '') && !(channel ?? '').includes('a') ? (parts[0] as 'webp' | 'jpeg') : 'webp';
    const quality = /^\d+$/.test(parts.at(-1) ?? '') ? Math.min(100, Math.max(1, Number(parts.at(-1)))) : 90;
    let image = sharp(file);
    if (format === 'jpeg' || channel === 'rgb') image = image.removeAlpha();
    const bytes = format === 'webp' ? await image.webp({ quality }).toBuffer() : await image.jpeg({ quality }).toBuffer();
    return { type: `image/${format}`, bytes };
  }
  if (channel === 'rgb') return { type: 'image/png', bytes: await sharp(file).removeAlpha().png().toBuffer() };
  if (channel === 'a') {
    const { data, info } = await sharp(file).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    for (let i = 0; i < data.length; i += 4) data.fill(0, i, i + 3);
    const bytes = await sharp(data, { raw: { width: info.width, height: info.height, channels: 4 } }).png().toBuffer();
    return { type: 'image/png', bytes };
  }
  return null;
}

function contentDisposition(filename: string): string {
  // Header values must be latin-1; non-ASCII names go in the RFC 5987 form.
  if (/^[\x20-\x7e]*$/.test(filename)) return `filename="${filename.replace(/"/g, '\\"')}"`;
  return `filename*=UTF-8''${encodeURIComponent(filename)}`;
}

function sameContent(file: string, data: Buffer): boolean {
  const hash = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
  try {
    return hash(fs.readFileSync(file)) === hash(data);
  } catch {
    return false;
  }
}
