/**
 * Hostile files to workflow import, built here as an attacker would (small files that unpack or
 * expand to a lot): each must be refused naming the limit (`too_large`, a 413) or read in one pass,
 * never inflated, decoded or expanded without a cap. No timing: the assertions are the answers.
 */
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { isKind } from '../../../server/domain-error.js';
import type { ObjectInfo } from '../../../server/engine/engine-graph.js';
import { embeddedTexts, MAX_TEXT_BYTES } from '../../../server/workflows/import/embedded-metadata.js';
import { MAX_GRAPH_NODES, MAX_GRAPH_PARTS, MAX_SUBGRAPH_DEPTH } from '../../../server/workflows/import/subgraphs.js';
import { readWorkflowFile } from '../../../server/workflows/import/read-workflow-file.js';
import { readWorkflowZip } from '../../../server/workflows/import/workflow-zip.js';
import { pngWithText, webpWithExif } from '../../fixtures/workflow-import/fixtures.js';

const MB = 1024 * 1024;
const objectInfo: ObjectInfo = {};

function refusal(run: () => unknown): { kind?: string; message: string } {
  try {
    run();
  } catch (error) {
    return { kind: (error as { kind?: string }).kind, message: (error as Error).message };
  }
  throw new Error('the file was not refused');
}

async function asyncRefusal(run: () => Promise<unknown>): Promise<{ kind?: string; message: string }> {
  try {
    await run();
  } catch (error) {
    return { kind: (error as { kind?: string }).kind, message: (error as Error).message };
  }
  throw new Error('the file was not refused');
}

/** Chunks of `type` after the sample PNG's IHDR. */
function pngWithChunk(type: string, ...datas: Buffer[]): Buffer {
  const base = pngWithText({});
  const ihdrEnd = 8 + 8 + base.readUInt32BE(8) + 4;
  const chunks = datas.map((data) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(Buffer.concat([head.subarray(4), data])), 0);
    return Buffer.concat([head, data, crc]);
  });
  return Buffer.concat([base.subarray(0, ihdrEnd), ...chunks, base.subarray(ihdrEnd)]);
}

/** A WebP whose EXIF IFD has `count` ASCII tags all pointing at the same `value`. */
function webpWithSharedTags(value: Buffer, count: number): Buffer {
  const one = webpWithExif({ prompt: 'x' });
  const exifAt = one.indexOf('EXIF', 12, 'latin1');
  const ifdSize = 2 + count * 12 + 4;
  const tiff = Buffer.alloc(8 + ifdSize + value.length);
  tiff.write('II', 0, 'latin1');
  tiff.writeUInt16LE(42, 2);
  tiff.writeUInt32LE(8, 4);
  tiff.writeUInt16LE(count, 8);
  for (let i = 0; i < count; i++) {
    const entry = 10 + i * 12;
    tiff.writeUInt16LE(0x0110, entry);
    tiff.writeUInt16LE(2, entry + 2);
    tiff.writeUInt32LE(value.length, entry + 4);
    tiff.writeUInt32LE(8 + ifdSize, entry + 8);
  }
  value.copy(tiff, 8 + ifdSize);
  const head = Buffer.alloc(8);
  head.write('EXIF', 0, 'latin1');
  head.writeUInt32LE(tiff.length, 4);
  const body = Buffer.concat([one.subarray(8, exifAt), head, tiff, Buffer.alloc(tiff.length % 2)]);
  const riff = Buffer.alloc(8);
  riff.write('RIFF', 0, 'latin1');
  riff.writeUInt32LE(body.length, 4);
  return Buffer.concat([riff, body]);
}

interface ZipPart {
  name: string;
  /** Index of the part whose local entry (data) this directory entry points at. */
  dataOf?: number;
  data?: Buffer;
  method: 0 | 8;
  /** The uncompressed size the directory declares. */
  declared: number;
}

/** A ZIP whose directory may lie about sizes and point several names at one entry's data. */
function hostileZip(parts: ZipPart[]): Buffer {
  const locals: Buffer[] = [];
  const offsets: number[] = [];
  const sizes: number[] = [];
  let at = 0;
  for (const part of parts) {
    if (part.data === undefined) continue;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(part.method, 8);
    local.writeUInt32LE(part.data.length, 18);
    local.writeUInt32LE(part.declared, 22);
    local.writeUInt16LE(Buffer.byteLength(part.name), 26);
    offsets[parts.indexOf(part)] = at;
    sizes[parts.indexOf(part)] = part.data.length;
    const entry = Buffer.concat([local, Buffer.from(part.name), part.data]);
    locals.push(entry);
    at += entry.length;
  }
  const central = parts.map((part, index) => {
    const source = part.dataOf ?? index;
    const head = Buffer.alloc(46);
    head.writeUInt32LE(0x02014b50, 0);
    head.writeUInt16LE(part.method, 10);
    head.writeUInt32LE(sizes[source]!, 20);
    head.writeUInt32LE(part.declared, 24);
    head.writeUInt16LE(Buffer.byteLength(part.name), 28);
    head.writeUInt32LE(offsets[source]!, 42);
    return Buffer.concat([head, Buffer.from(part.name)]);
  });
  const dir = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(at, 16);
  return Buffer.concat([...locals, dir, end]);
}

describe('hostile images', () => {
  it('has the limits the README names', () => {
    expect([MAX_TEXT_BYTES / MB, MAX_GRAPH_NODES, MAX_GRAPH_PARTS, MAX_SUBGRAPH_DEPTH]).toEqual([32, 10_000, 100_000, 16]);
  });

  it('reads a WebP EXIF text up to its first NUL in one pass (NULs inside once stalled a regular expression)', () => {
    const webp = webpWithSharedTags(Buffer.from(`prompt:${'\0'.repeat(20_000)}x`), 1);
    expect(embeddedTexts(webp)).toEqual({ prompt: '' });
    expect(refusal(() => readWorkflowFile(webp, objectInfo)).message).toMatch(/carries no "workflow" or "prompt"/);
  });

  it('refuses a WebP whose tags all point at the same bytes past the text limit', () => {
    const webp = webpWithSharedTags(Buffer.from(`prompt:${'a'.repeat(64 * 1024)}`), 600);
    expect(webp.length).toBeLessThan(100 * 1024);
    const refused = refusal(() => embeddedTexts(webp));
    expect(refused).toEqual({ kind: 'too_large', message: expect.stringMatching(/more than 32 MB of text/) });
  });

  it('refuses a PNG whose zTXt or iTXt chunk inflates past the limit, by what zlib produced', () => {
    const bomb = zlib.deflateSync(Buffer.alloc(40 * MB, 0x20), { level: 9 });
    expect(bomb.length).toBeLessThan(100 * 1024);
    const ztxt = pngWithChunk('zTXt', Buffer.concat([Buffer.from('workflow\0\0', 'latin1'), bomb]));
    expect(refusal(() => readWorkflowFile(ztxt, objectInfo))).toEqual({ kind: 'too_large', message: expect.stringMatching(/32 MB/) });
    const itxt = pngWithChunk('iTXt', Buffer.concat([Buffer.from('prompt\0\x01\0\0\0', 'latin1'), bomb]));
    expect(refusal(() => readWorkflowFile(itxt, objectInfo)).kind).toBe('too_large');
    // Many small chunks count together.
    const small = zlib.deflateSync(Buffer.alloc(9 * MB, 0x20));
    const many = pngWithChunk('zTXt', ...['a', 'b', 'c', 'd'].map((key) => Buffer.concat([Buffer.from(`${key}\0\0`, 'latin1'), small])));
    expect(refusal(() => embeddedTexts(many)).kind).toBe('too_large');
  });
});

describe('hostile ZIPs', () => {
  it('counts stored entries by the bytes they hold, not the size they declare (many names on one entry)', async () => {
    const data = Buffer.alloc(2 * MB, 0x20);
    const parts: ZipPart[] = [{ name: 'manifest.yaml', data, method: 0, declared: 0 }];
    for (let i = 1; i < 30; i++) parts.push({ name: `blocks/a${i}.json`, dataOf: 0, method: 0, declared: 0 });
    const refused = await asyncRefusal(() => readWorkflowZip(hostileZip(parts)));
    expect(refused).toEqual({ kind: 'too_large', message: expect.stringMatching(/more than 50 MB/) });
  });

  it('stops inflating a deflated entry at the limit whatever size it declares', async () => {
    const bomb = zlib.deflateRawSync(Buffer.alloc(60 * MB, 0x20), { level: 9 });
    for (const declared of [10, 60 * MB]) {
      const refused = await asyncRefusal(() => readWorkflowZip(hostileZip([{ name: 'workflow.json', data: bomb, method: 8, declared }])));
      expect(refused).toEqual({ kind: 'too_large', message: expect.stringMatching(/more than 50 MB/) });
    }
  });
});

/** An editor workflow whose subgraph `s<k>` holds `width` instances of `s<k+1>`, down to `levels`. */
function nestedUi(levels: number, width: number): Record<string, unknown> {
  const subgraphs = Array.from({ length: levels }, (_, level) => ({
    id: `s${level}`,
    nodes: level === levels - 1
      ? [{ id: 1, type: 'Note', inputs: [], outputs: [], widgets_values: ['leaf'] }, { id: 2, type: 'EmptyLatentImage', inputs: [], outputs: [], widgets_values: [512, 512, 1] }]
      : Array.from({ length: width }, (_, i) => ({ id: i + 1, type: `s${level + 1}`, inputs: [], outputs: [], widgets_values: [] })),
    links: [],
  }));
  return { nodes: [{ id: 1, type: 's0', inputs: [], outputs: [], widgets_values: [] }], links: [], definitions: { subgraphs }, version: 0.4 };
}

describe('hostile subgraphs', () => {
  const json = (value: unknown) => Buffer.from(JSON.stringify(value));

  it('refuses subgraphs that expand past the node limit before expanding them', () => {
    const ui = nestedUi(16, 2); // 2^15 instances of the leaf: a few KB that expand to 65 536 nodes
    expect(json(ui).length).toBeLessThan(10 * 1024);
    expect(refusal(() => readWorkflowFile(json(ui), objectInfo))).toEqual({ kind: 'too_large', message: expect.stringMatching(/more than 10000 nodes/) });
  });

  it('refuses subgraphs nested past the depth limit, and one that contains itself', () => {
    expect(refusal(() => readWorkflowFile(json(nestedUi(20, 1)), objectInfo))).toEqual({ kind: 'too_large', message: expect.stringMatching(/more than 16 deep/) });
    const loop = nestedUi(2, 1) as { definitions: { subgraphs: { nodes: { type: string }[] }[] } };
    loop.definitions.subgraphs[1]!.nodes[0]!.type = 's0';
    expect(refusal(() => readWorkflowFile(json(loop), objectInfo)).message).toMatch(/contains itself/);
  });

  it('expands many instances of one subgraph, each once', () => {
    const ui = nestedUi(2, 1) as { nodes: unknown[] };
    ui.nodes = Array.from({ length: 3000 }, (_, i) => ({ id: i + 1, type: 's0', inputs: [], outputs: [], widgets_values: [] }));
    const graph = readWorkflowFile(json(ui), objectInfo).graph;
    expect(Object.keys(graph)).toHaveLength(3000);
    expect(new Set(Object.values(graph).map((node) => node.class_type))).toEqual(new Set(['EmptyLatentImage']));
  });

  it('refuses group nodes whose instances would expand past the node limit', () => {
    const inner = Array.from({ length: 200 }, () => ({ type: 'EmptyLatentImage', inputs: [], outputs: [], widgets_values: [512, 512, 1] }));
    const nodes = Array.from({ length: 60 }, (_, i) => ({ id: i + 1, type: 'workflow>Big', inputs: [], outputs: [], widgets_values: [] }));
    const ui = { nodes, links: [], extra: { groupNodes: { Big: { nodes: inner, links: [] } } }, version: 0.4 };
    expect(refusal(() => readWorkflowFile(json(ui), objectInfo))).toEqual({ kind: 'too_large', message: expect.stringMatching(/more than 10000 nodes/) });
  });

  it('is a 413 (too_large) through the domain error kinds', () => {
    let caught: unknown;
    try {
      readWorkflowFile(json(nestedUi(16, 2)), objectInfo);
    } catch (error) {
      caught = error;
    }
    expect(isKind(caught, 'too_large')).toBe(true);
  });
});
