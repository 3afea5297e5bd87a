/**
 * Multipart uploads. Files stream to a temporary file inside `STUDIO_DIR/tmp/uploads` (never
 * into memory: a 600 MB upload must not grow the server), each route with its own documented
 * limits (README "Uploads"), and the temporary files are removed when the response is done.
 * An image input is checked by its bytes, not its name, before it goes anywhere.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Request, RequestHandler } from 'express';
import type multer from 'multer';
import { ensureFreeSpace } from '../free-space.js';
import { HttpError } from './errors.js';
import { looksLikeImage, readHead } from './file-sniff.js';

const MB = 1024 * 1024;

/**
 * What every upload route accepts besides its files: a few named text fields (`params`, `seed`,
 * `answers`), each with a short plain name. Bracketed names (`x[4294967294]`) are refused: the
 * form parser would build nested objects and arrays of any length from them, and walking such an
 * array blocks the server for minutes.
 */
const FIELD_LIMITS = { fields: 16, fieldNameSize: 100, fieldNestingDepth: 0 } as const;

/** Per-route limits: size of one file, how many files, size of one text field, parts in all. */
const UPLOAD_LIMITS = {
  /** An input image for a prompt (upload-image, execute, build, preset run). */
  image: { ...FIELD_LIMITS, fileSize: 50 * MB, files: 1, fieldSize: 5 * MB, parts: 1 + FIELD_LIMITS.fields },
  /** Input files for the asset browser (images and videos). */
  inputs: { ...FIELD_LIMITS, fileSize: 512 * MB, files: 100, fieldSize: 64 * 1024, parts: 100 + FIELD_LIMITS.fields },
  /** A JSON document (catalog import, preset import): parsed in memory, so small. */
  json: { ...FIELD_LIMITS, fileSize: 5 * MB, files: 1, fieldSize: 64 * 1024, parts: 1 + FIELD_LIMITS.fields },
  /** A workflow to import: JSON, or a PNG/WebP carrying one, read in memory. */
  workflow: { ...FIELD_LIMITS, fileSize: 50 * MB, files: 1, fieldSize: 64 * 1024, parts: 1 + FIELD_LIMITS.fields },
} as const;

export type UploadKind = keyof typeof UPLOAD_LIMITS;

/** An uploaded file on disk, as multer's disk storage hands it over. */
export interface UploadedFile {
  originalname: string;
  /** The temporary file (removed after the response). */
  path: string;
  size: number;
}

/** Builds the multipart middleware of each route; all of them share one temporary folder. */
export class Uploads {
  constructor(private readonly tmpDir: string) {
    fs.mkdirSync(tmpDir, { recursive: true, mode: 0o700 });
  }

  /** One file in `field` (plus text fields). */
  single(field: string, kind: UploadKind): RequestHandler {
    return this.checkingSpace(removingAfterResponse(this.parser(kind, (parse) => parse.single(field))));
  }

  /** Up to the kind's count of files in `field`. */
  array(field: string, kind: UploadKind): RequestHandler {
    return this.checkingSpace(removingAfterResponse(this.parser(kind, (parse) => parse.array(field, UPLOAD_LIMITS[kind].files))));
  }

  /** Refuse (507, with the numbers) an upload whose declared size does not fit, before reading it. */
  private checkingSpace(parse: RequestHandler): RequestHandler {
    return (req, res, next) => {
      const length = Number(req.headers['content-length']);
      if (!(length > 0)) return parse(req, res, next);
      ensureFreeSpace(this.tmpDir, length, 'this upload').then(() => parse(req, res, next), next);
    };
  }

  /**
   * The multipart parser of one route, built on its first upload: the form library is loaded then,
   * not at start (most sessions upload nothing, and every route's parser would load it).
   */
  private parser(kind: UploadKind, pick: (parse: multer.Multer) => RequestHandler): RequestHandler {
    let built: Promise<RequestHandler> | undefined;
    return (req, res, next) => {
      built ??= import('multer').then(({ default: multer }) => {
        const storage = multer.diskStorage({
          destination: this.tmpDir,
          filename: (_req, _file, done) => done(null, `${crypto.randomBytes(12).toString('hex')}.upload`),
        });
        return pick(multer({ storage, limits: UPLOAD_LIMITS[kind] }));
      });
      built.then((parse) => parse(req, res, next), next);
    };
  }
}

/** Run `parse`, and remove the request's temporary files once the response is done or the client left. */
function removingAfterResponse(parse: RequestHandler): RequestHandler {
  return (req, res, next) => {
    res.on('close', () => {
      for (const file of uploadedFiles(req)) fs.rm(file.path, { force: true }, () => {});
    });
    parse(req, res, next);
  };
}

function uploadedFiles(req: Request): UploadedFile[] {
  const files: UploadedFile[] = [];
  if (req.file) files.push(req.file);
  if (Array.isArray(req.files)) files.push(...req.files);
  else if (req.files) for (const list of Object.values(req.files)) files.push(...list);
  return files;
}

/** 400 unless the uploaded file starts like an image (PNG, JPEG, GIF, WebP, BMP, TIFF). */
export async function assertImage(file: UploadedFile, field: string): Promise<void> {
  if (file.size === 0) throw new HttpError(400, `${field}: the file is empty`);
  if (!looksLikeImage(await readHead(file.path))) {
    throw new HttpError(400, `${field}: "${path.basename(file.originalname)}" is not an image (PNG, JPEG, WebP, GIF, BMP or TIFF expected)`);
  }
}

/** The text of a small uploaded document (the `json` kind). */
export function readUploadText(file: UploadedFile): Promise<string> {
  return fsp.readFile(file.path, 'utf8');
}
