/**
 * A fake llama.cpp release source: a small real HTTP server that answers
 * `GET /repos/ggml-org/llama.cpp/releases` like GitHub's REST API (tag_name, published_at, draft,
 * prerelease, html_url, assets[] with name, size, browser_download_url and digest "sha256:…") and
 * serves the archives (with Range support, so the download queue can resume). Archives are real
 * `.tar.gz` files made with the system's tar from a folder, exactly as llama.cpp's release job
 * packs them (`--transform s,^\.,llama-<tag>,`), or hand-written tar bytes for hostile entries.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';

export interface FakeAsset {
  name: string;
  content: Buffer;
  /** The digest to publish; default the real one. `null`: none. */
  digest?: string | null;
}

export interface FakeRelease {
  tag: string;
  assets: FakeAsset[];
}

export interface FakeReleaseSource {
  /** The base URL to give `LLM_RELEASES_URL`. */
  url: string;
  /** Newest first, like the API. */
  releases: FakeRelease[];
  requests: string[];
  close(): Promise<void>;
}

/** A `.tar.gz` of `folder`'s contents under `llama-<tag>/`, packed like the release job does. */
export function releaseTarGz(folder: string, tag: string): Buffer {
  const out = path.join(fs.mkdtempSync(path.join(path.dirname(folder), '.pack-')), 'a.tar.gz');
  execFileSync('tar', ['-czf', out, '--transform', `s,^\\.,llama-${tag},`, '-C', folder, '.']);
  const bytes = fs.readFileSync(out);
  fs.rmSync(path.dirname(out), { recursive: true, force: true });
  return bytes;
}

/** A `.tar.gz` written byte by byte, so entries can be anything (`../escape`, links, devices). */
export function handTarGz(entries: Array<{ name: string; type?: '0' | '2' | '1' | '5' | '3'; content?: Buffer; link?: string; sizeField?: string }>): Buffer {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const content = e.content ?? Buffer.alloc(0);
    const h = Buffer.alloc(512);
    h.write(e.name, 0, 100, 'utf8');
    h.write('0000755\0', 100);
    h.write('0000000\0', 108);
    h.write('0000000\0', 116);
    h.write(e.sizeField ?? content.length.toString(8).padStart(11, '0') + '\0', 124);
    h.write('00000000000\0', 136);
    h.write('        ', 148);
    h.write(e.type ?? '0', 156);
    if (e.link) h.write(e.link, 157, 100, 'utf8');
    h.write('ustar\0', 257);
    h.write('00', 263);
    let sum = 0;
    for (const b of h) sum += b;
    h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
    blocks.push(h, content, Buffer.alloc((512 - (content.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return zlib.gzipSync(Buffer.concat(blocks));
}

export const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

/** Start the fake source; `releases` may be changed later (a newer release appears). */
export async function startFakeReleaseSource(releases: FakeRelease[]): Promise<FakeReleaseSource> {
  const requests: string[] = [];
  const state: FakeReleaseSource = { url: '', releases, requests, close: async () => {} };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(`${req.method} ${url.pathname}${url.search}`);
    if (url.pathname === '/repos/ggml-org/llama.cpp/releases') {
      const body = state.releases.map((r, i) => ({
        url: `${state.url}/releases/${i}`,
        html_url: `https://github.com/ggml-org/llama.cpp/releases/tag/${r.tag}`,
        id: 1000 + i,
        tag_name: r.tag,
        name: r.tag,
        draft: false,
        prerelease: false,
        created_at: '2026-11-20T10:00:00Z',
        published_at: '2026-11-20T10:05:00Z',
        assets: r.assets.map((a, j) => ({
          url: `${state.url}/assets/${j}`,
          id: 5000 + j,
          name: a.name,
          label: '',
          content_type: a.name.endsWith('.zip') ? 'application/zip' : 'application/gzip',
          state: 'uploaded',
          size: a.content.length,
          digest: a.digest === undefined ? `sha256:${sha256(a.content)}` : a.digest,
          download_count: 0,
          browser_download_url: `${state.url.replace(/\/repos\/.*$/, '')}/download/${r.tag}/${a.name}`,
        })),
      }));
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' });
      return void res.end(JSON.stringify(body));
    }
    const m = /^\/download\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    const asset = m ? state.releases.find((r) => r.tag === m[1])?.assets.find((a) => a.name === m[2]) : undefined;
    if (!asset) {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      return void res.end('Not Found');
    }
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const start = range ? Number(range[1]) : 0;
    res.writeHead(range ? 206 : 200, {
      'Content-Type': 'application/octet-stream',
      'Content-Length': asset.content.length - start,
      'Accept-Ranges': 'bytes',
      ETag: `"${sha256(asset.content).slice(0, 16)}"`,
      ...(range ? { 'Content-Range': `bytes ${start}-${asset.content.length - 1}/${asset.content.length}` } : {}),
    });
    res.end(asset.content.subarray(start));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  state.url = `http://127.0.0.1:${port}/repos/ggml-org/llama.cpp`;
  state.close = () => new Promise((resolve) => server.close(() => resolve()));
  return state;
}
