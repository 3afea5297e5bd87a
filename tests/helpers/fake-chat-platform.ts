/**
 * A small real HTTP server answering like the chat platform's bot API (external-apis §2):
 * `/bot<token>/<method>` with the `{ok, result}` envelope, `getUpdates` long polling fed by the
 * test, multipart uploads, `getFile` plus `/file/bot<token>/<path>` downloads, and injected
 * failures (429 with `retry_after`, a dropped connection, 401). As strict as the platform: an
 * unknown method is a 404, a text over 4096 characters, a caption over 1024, an empty text and an
 * edit to the same content are refused with the platform's own 400 descriptions. Every call is
 * recorded.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Request, Response } from 'express';
import multer from 'multer';

export interface RecordedCall {
  method: string;
  token: string;
  params: Record<string, unknown>;
  /** Uploaded files by field name. */
  files: Record<string, { name: string; size: number; bytes: Buffer }>;
  at: number;
}

/** The platform's limits: a message's text, and a media caption (characters after entity parsing). */
export const TEXT_LIMIT = 4096;
export const CAPTION_LIMIT = 1024;
const MEDIA_METHODS = new Set(['sendPhoto', 'sendVideo', 'sendDocument']);

export type Failure = { status: number; description: string; retry_after?: number } | 'drop';

export interface FakeChatPlatform {
  url: string;
  token: string;
  calls: RecordedCall[];
  /** Long polls waiting right now. */
  openPolls(): number;
  /** Queue an update (its update_id is assigned); a waiting long poll returns it at once. */
  push(update: Record<string, unknown>): number;
  /** A text message from `chatId`. */
  sendText(chatId: number, text: string): number;
  /** A button press on a message sent to `chatId`. */
  press(chatId: number, data: string): number;
  /** A photo message; the bytes are served through getFile. */
  sendPhoto(chatId: number, bytes: Buffer): number;
  /** An image sent as a file (document), with its own file name. */
  sendImageFile(chatId: number, bytes: Buffer, fileName: string): number;
  /** Fail the next calls of `method`, in order. */
  failNext(method: string, ...failures: Failure[]): void;
  callsOf(method: string): RecordedCall[];
  /** Resolves when `predicate` holds for the calls (checked on every call), or rejects after `ms`. */
  waitFor(predicate: (calls: RecordedCall[]) => boolean, ms?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Start a fake chat platform for `token`. `clock` stamps each call's `at` (a test driving the
 * bot's time through a TestClock reads the calls in that virtual time).
 */
export async function startFakeChatPlatform(token = '123456:TEST-token', options: { clock?: () => number } = {}): Promise<FakeChatPlatform> {
  const clock = options.clock ?? Date.now;
  const calls: RecordedCall[] = [];
  const updates: Array<Record<string, unknown> & { update_id: number }> = [];
  const failures = new Map<string, Failure[]>();
  const files = new Map<string, Buffer>();
  const waiters = new Set<() => void>();
  const checkers = new Set<() => void>();
  let nextUpdate = 1;
  let nextMessage = 1000;
  let open = 0;
  /** What the bot sent, by `chat:message`, as the platform keeps it (for edits). */
  const sent = new Map<string, { text: string; markup: string }>();
  const keep = (chatId: number, messageId: number, text: unknown, markup: unknown) =>
    sent.set(`${chatId}:${messageId}`, { text: String(text ?? ''), markup: JSON.stringify(markup ?? null) });

  const notify = () => {
    for (const w of [...waiters]) w();
  };
  const record = (call: RecordedCall) => {
    calls.push(call);
    for (const c of [...checkers]) c();
  };
  const push = (update: Record<string, unknown>) => {
    const id = nextUpdate++;
    updates.push({ ...update, update_id: id });
    notify();
    return id;
  };
  const chat = (chatId: number) => ({ id: chatId, type: 'private', first_name: 'Tester' });
  const from = (chatId: number) => ({ id: chatId, is_bot: false, first_name: 'Tester' });

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const json = (status: number, body: unknown) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
      const fileMatch = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
      if (fileMatch) {
        const bytes = fileMatch[1] === token ? files.get(fileMatch[2]!) : undefined;
        if (!bytes) return json(404, { ok: false, error_code: 404, description: 'Not Found' });
        return res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': bytes.length }).end(bytes);
      }
      const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
      if (!match) return json(404, { ok: false, error_code: 404, description: 'Not Found' });
      const [, callToken, method] = match as unknown as [string, string, string];
      const { params, uploaded } = await readParams(req, res, url);
      record({ method, token: callToken, params, files: uploaded, at: clock() });
      const failure = failures.get(method)?.shift();
      if (failure === 'drop') return req.socket.destroy();
      if (failure) {
        return json(failure.status, {
          ok: false,
          error_code: failure.status,
          description: failure.description,
          ...(failure.retry_after !== undefined ? { parameters: { retry_after: failure.retry_after } } : {}),
        });
      }
      if (callToken !== token) return json(401, { ok: false, error_code: 401, description: 'Unauthorized' });
      const ok = (result: unknown) => json(200, { ok: true, result });
      // The platform's own refusals, word for word (its Bot API documents the limits).
      const bad = (description: string) => json(400, { ok: false, error_code: 400, description: `Bad Request: ${description}` });
      const chatId = Number(params.chat_id);
      const text = typeof params.text === 'string' ? params.text : '';
      const caption = typeof params.caption === 'string' ? params.caption : '';
      if ((method === 'sendMessage' || method === 'editMessageText') && text.length === 0) return bad('message text is empty');
      if ((method === 'sendMessage' || method === 'editMessageText') && text.length > TEXT_LIMIT) return bad('message is too long');
      if (MEDIA_METHODS.has(method) && caption.length > CAPTION_LIMIT) return bad('message caption is too long');
      switch (method) {
        case 'getUpdates': {
          const offset = Number(params.offset ?? 0);
          const pending = () => updates.filter((u) => u.update_id >= offset);
          if (pending().length === 0 && Number(params.timeout ?? 0) > 0) {
            open++;
            await new Promise<void>((resolve) => {
              const done = () => {
                clearTimeout(timer);
                waiters.delete(done);
                resolve();
              };
              const timer = setTimeout(done, Number(params.timeout) * 1000);
              waiters.add(done);
              req.socket.once('close', done);
            });
            open--;
          }
          return ok(pending());
        }
        case 'sendMessage': {
          const id = nextMessage++;
          keep(chatId, id, text, params.reply_markup);
          return ok({ message_id: id, date: 0, chat: chat(chatId), text });
        }
        case 'editMessageText': {
          const key = `${chatId}:${Number(params.message_id)}`;
          const before = sent.get(key);
          if (!before) return bad('message to edit not found');
          if (before.text === text && before.markup === JSON.stringify(params.reply_markup ?? null)) {
            return bad('message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message');
          }
          keep(chatId, Number(params.message_id), text, params.reply_markup);
          return ok({ message_id: Number(params.message_id), date: 0, chat: chat(chatId), text });
        }
        case 'sendPhoto':
        case 'sendVideo':
        case 'sendDocument':
          return ok({ message_id: nextMessage++, date: 0, chat: chat(chatId), caption });
        case 'getFile': {
          const id = String(params.file_id);
          const bytes = files.get(`photos/${id}.png`);
          return bytes ? ok({ file_id: id, file_unique_id: id, file_size: bytes.length, file_path: `photos/${id}.png` }) : json(400, { ok: false, error_code: 400, description: 'Bad Request: invalid file_id' });
        }
        case 'answerCallbackQuery':
        case 'sendChatAction':
        case 'deleteMessage':
          return ok(true);
        default:
          // The platform answers a method it does not have with 404, like an unknown path.
          return json(404, { ok: false, error_code: 404, description: 'Not Found' });
      }
    })().catch((err: unknown) => {
      res.writeHead(500).end(String(err));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    token,
    calls,
    openPolls: () => open,
    push,
    sendText: (chatId, text) => push({ message: { message_id: nextMessage++, date: 0, chat: chat(chatId), from: from(chatId), text } }),
    press: (chatId, data) => {
      // The button sits on a menu message of the bot's (message 1), which it may edit.
      if (!sent.has(`${chatId}:1`)) keep(chatId, 1, 'menu', null);
      return push({
        callback_query: { id: `cq${nextUpdate}`, from: from(chatId), chat_instance: 'ci', data, message: { message_id: 1, date: 0, chat: chat(chatId), text: 'menu' } },
      });
    },
    sendPhoto(chatId, bytes) {
      const fileId = `file${nextUpdate}`;
      files.set(`photos/${fileId}.png`, bytes);
      const photo = [{ file_id: fileId, file_unique_id: fileId, width: 64, height: 64, file_size: bytes.length }];
      return push({ message: { message_id: nextMessage++, date: 0, chat: chat(chatId), from: from(chatId), photo } });
    },
    sendImageFile(chatId, bytes, fileName) {
      const fileId = `file${nextUpdate}`;
      files.set(`photos/${fileId}.png`, bytes);
      const document = { file_id: fileId, file_unique_id: fileId, file_name: fileName, mime_type: 'image/png', file_size: bytes.length };
      return push({ message: { message_id: nextMessage++, date: 0, chat: chat(chatId), from: from(chatId), document } });
    },
    failNext(method, ...list) {
      failures.set(method, [...(failures.get(method) ?? []), ...list]);
    },
    callsOf: (method) => calls.filter((c) => c.method === method),
    waitFor(predicate, ms = 20_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!predicate(calls)) return;
          clearTimeout(timer);
          clearInterval(ticker);
          checkers.delete(check);
          resolve();
        };
        // Also on a tick: some conditions (open polls) change without a new call.
        const ticker = setInterval(check, 25);
        const timer = setTimeout(() => {
          clearInterval(ticker);
          checkers.delete(check);
          reject(new Error(`fake chat platform: condition not met after ${ms} ms; calls: ${calls.map((c) => c.method).join(', ')}`));
        }, ms);
        checkers.add(check);
        check();
      });
    },
    async close() {
      notify();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The multipart form reader Studio itself uses (busboy, under multer), file names read as UTF-8. */
const multipartForm = multer({ storage: multer.memoryStorage(), defParamCharset: 'utf8' }).any();

/**
 * Parameters from the query, a JSON body, a urlencoded body or a multipart body. grammY writes
 * multipart headers without spaces and with bare file names, which the platform and busboy accept.
 */
async function readParams(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<{ params: Record<string, unknown>; uploaded: RecordedCall['files'] }> {
  const params: Record<string, unknown> = Object.fromEntries(url.searchParams);
  const uploaded: RecordedCall['files'] = {};
  if (req.method !== 'POST') return { params, uploaded };
  const type = req.headers['content-type'] ?? '';
  if (/^multipart\/form-data/i.test(type)) {
    const form = req as Request;
    await new Promise<void>((resolve, reject) => multipartForm(form, res as Response, (err: unknown) => (err ? reject(err as Error) : resolve())));
    for (const [key, value] of Object.entries(form.body as Record<string, string>)) params[key] = parseMaybeJson(value);
    for (const file of Array.isArray(form.files) ? form.files : []) uploaded[file.fieldname] ??= { name: file.originalname, size: file.buffer.length, bytes: file.buffer };
    return { params, uploaded };
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  if (type.startsWith('application/x-www-form-urlencoded')) {
    for (const [key, value] of new URLSearchParams(body.toString('utf8'))) params[key] = parseMaybeJson(value);
  } else if (body.length) {
    Object.assign(params, JSON.parse(body.toString('utf8')) as Record<string, unknown>);
  }
  return { params, uploaded };
}

function parseMaybeJson(value: string): unknown {
  if (!/^[[{]/.test(value)) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}
