/**
 * `contentDisposition`: every value is a legal header value (Node throws on anything outside
 * Latin-1), and a name that is not plain ASCII survives intact in the RFC 6266 `filename*` form.
 */
import http from 'node:http';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { contentDisposition } from '../../../server/http/content-disposition.js';

/** Set the value on a real response, as Express would: throws on an invalid header value. */
function setOnRealResponse(value: string): string | undefined {
  const res = new http.ServerResponse(new http.IncomingMessage(new net.Socket()));
  res.setHeader('Content-Disposition', value);
  return res.getHeader('Content-Disposition') as string | undefined;
}

/** The name a browser reads from `filename*=UTF-8''…`, or null without one. */
function extendedName(value: string): string | null {
  const match = /;\s*filename\*=UTF-8''([^;\s]*)/.exec(value);
  return match ? decodeURIComponent(match[1]!) : null;
}

/** The plain `filename="…"` value. */
function plainName(value: string): string | null {
  const match = /;\s*filename="([^"]*)"/.exec(value);
  return match ? match[1]! : null;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
/** RFC 5987 `attr-char` plus percent escapes: what may appear in the `filename*` value. */
const EXT_VALUE = /^(?:[A-Za-z0-9!#$&+\-.^_`|~]|%[0-9A-F]{2})*$/;

describe('contentDisposition', () => {
  it('quotes a plain ASCII name and adds nothing else', () => {
    expect(contentDisposition('inline', 'out_00001_.png')).toBe('inline; filename="out_00001_.png"');
    expect(contentDisposition('attachment', 'My Video (1).mp4')).toBe('attachment; filename="My Video (1).mp4"');
  });

  it('never lets a quote or a backslash end the quoted string; filename* keeps them', () => {
    const name = 'say "hi" \\ bye.png';
    const value = contentDisposition('attachment', name);
    expect(value.startsWith('attachment; ')).toBe(true);
    expect(plainName(value)).toBe('say _hi_ _ bye.png');
    expect(extendedName(value)).toBe(name);
    expect(PRINTABLE_ASCII.test(value)).toBe(true);
    expect(setOnRealResponse(value)).toBe(value);
  });

  it.each(['ノイズ 画像.png', 'café.mp4', 'emoji 🎬 clip.webm', "l'été (2)*.png"])('makes %s a valid header with an ASCII fallback and an exact filename*', (name) => {
    const value = contentDisposition('inline', name);
    expect(value.startsWith('inline; filename="')).toBe(true);
    expect(PRINTABLE_ASCII.test(value)).toBe(true);
    expect(() => setOnRealResponse(value)).not.toThrow();
    const fallback = plainName(value)!;
    expect(PRINTABLE_ASCII.test(fallback)).toBe(true);
    // The fallback keeps the extension, so a browser without filename* still saves a usable file.
    expect(fallback.endsWith(name.slice(name.lastIndexOf('.')))).toBe(true);
    const ext = /filename\*=UTF-8''(\S*)$/.exec(value)?.[1];
    expect(ext).toBeDefined();
    expect(EXT_VALUE.test(ext!)).toBe(true);
    expect(extendedName(value)).toBe(name);
  });

  it('replaces each non-ASCII character of the fallback with one underscore', () => {
    expect(plainName(contentDisposition('inline', 'café.mp4'))).toBe('caf_.mp4');
    expect(plainName(contentDisposition('inline', 'ノイズ 画像.png'))).toBe('___ __.png');
  });

  it('shows why the fallback is needed: the raw name is not a legal header value', () => {
    expect(() => setOnRealResponse('inline; filename="ノイズ 画像.png"')).toThrow();
  });
});
