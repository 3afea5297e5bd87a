import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RotatingLog } from '../../../server/process/rotating-log.js';

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
});
afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

const read = (file: string) => fs.readFileSync(file, 'utf8');

describe('RotatingLog', () => {
  it('appends to an existing file and creates missing folders', async () => {
    const file = path.join(tmp, 'deep', 'logs', 'engine.log');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'old\n');
    const log = new RotatingLog(file);
    log.write('one\n');
    log.write(Buffer.from('two\n'));
    await log.close();
    expect(read(file)).toBe('old\none\ntwo\n');
  });

  it('rotates when the size passes maxBytes, keeping `keep` old files in order', async () => {
    const file = path.join(tmp, 'engine.log');
    const log = new RotatingLog(file, { maxBytes: 10, keep: 2 });
    for (const n of [1, 2, 3, 4, 5]) log.write(`chunk-${n}-ab\n`); // 11 bytes: one rotation each
    await log.close();
    expect(fs.readdirSync(tmp).sort()).toEqual(['engine.log', 'engine.log.1', 'engine.log.2']);
    expect(read(`${file}.2`)).toBe('chunk-4-ab\n');
    expect(read(`${file}.1`)).toBe('chunk-5-ab\n');
    expect(read(file)).toBe('');
  });

  it('keeps every line written during a rotation, in order', async () => {
    const file = path.join(tmp, 'engine.log');
    const log = new RotatingLog(file, { maxBytes: 1000, keep: 50 });
    const lines = Array.from({ length: 500 }, (_, i) => `line ${String(i).padStart(4, '0')}\n`);
    for (const line of lines) log.write(line);
    await log.close();
    const files = fs.readdirSync(tmp).filter((f) => f.startsWith('engine.log.'));
    const ordered = files.sort((a, b) => Number(b.split('.').pop()) - Number(a.split('.').pop()));
    const all = [...ordered.map((f) => read(path.join(tmp, f))), read(file)].join('');
    expect(all).toBe(lines.join(''));
    for (const f of files) expect(fs.statSync(path.join(tmp, f)).size).toBeLessThan(1000 + 11);
  });

  it('with keep = 0 starts a fresh file and keeps no old one', async () => {
    const file = path.join(tmp, 'engine.log');
    const log = new RotatingLog(file, { maxBytes: 5, keep: 0 });
    log.write('123456\n');
    log.write('abc\n');
    await log.close();
    expect(fs.readdirSync(tmp)).toEqual(['engine.log']);
    expect(read(file)).toBe('abc\n');
  });

  it('ignores writes after close', async () => {
    const file = path.join(tmp, 'engine.log');
    const log = new RotatingLog(file);
    log.write('kept\n');
    await log.close();
    log.write('dropped\n');
    await log.close();
    expect(read(file)).toBe('kept\n');
  });
});
