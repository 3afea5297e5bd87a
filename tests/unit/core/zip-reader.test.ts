/**
 * The one ZIP reader's refusals hold for both its users: an encrypted entry or a zip64 directory
 * is refused when the archive is listed (a workflow import, as a 400), not read as garbage later.
 */
import { describe, expect, it } from 'vitest';
import { isKind } from '../../../server/domain-error.js';
import { listZip } from '../../../server/workflows/import/zip-reader.js';

/** One stored entry `name` holding `data`, with general-purpose `flags` and the end record's `offset`. */
function oneEntryZip(name: string, data: Buffer, opts: { flags?: number; dirOffset?: number } = {}): Buffer {
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(opts.flags ?? 0, 6);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(name.length, 26);
  const head = Buffer.alloc(46);
  head.writeUInt32LE(0x02014b50, 0);
  head.writeUInt16LE(opts.flags ?? 0, 8);
  head.writeUInt32LE(data.length, 20);
  head.writeUInt32LE(data.length, 24);
  head.writeUInt16LE(name.length, 28);
  const dir = Buffer.concat([head, Buffer.from(name)]);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(opts.dirOffset ?? 30 + name.length + data.length, 16);
  return Buffer.concat([local, Buffer.from(name), data, dir, end]);
}

function refusal(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('the archive was not refused');
}

describe('the one ZIP reader', () => {
  it('reads a plain stored entry', () => {
    const [entry] = listZip(oneEntryZip('a.json', Buffer.from('{}')), 1024);
    expect(entry!.name).toBe('a.json');
    expect(entry!.read().toString()).toBe('{}');
  });

  it('refuses an encrypted entry and a zip64 directory when listing, as invalid input', () => {
    const encrypted = refusal(() => listZip(oneEntryZip('a.json', Buffer.from('xx'), { flags: 1 }), 1024));
    expect(isKind(encrypted, 'invalid')).toBe(true);
    expect(encrypted.message).toMatch(/encrypted/);
    const zip64 = refusal(() => listZip(oneEntryZip('a.json', Buffer.from('xx'), { dirOffset: 0xffffffff }), 1024));
    expect(zip64.message).toMatch(/zip64/);
  });
});
