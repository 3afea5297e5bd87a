/**
 * `events.jsonl`: one JSON object per line, appended as events happen and read back on boot.
 * Appends are synchronous on an open descriptor so that an event is on disk (in the page cache)
 * before `emit` returns and the order in the file is the order of emission.
 *
 * A write can stop part-way (a full disk, a file size limit, a crash): the file then ends with a
 * line cut short. The next append ends that line first, so the next event gets a line of its own
 * instead of being glued onto the broken one (which lost both at the next boot).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { StudioEvent } from '../contracts/events.contract.js';

const NEWLINE = 0x0a;
/** How every line `append` writes begins (`JSON.stringify` keeps key order). */
const EVENT_START = '{"id":"';

export class EventsFileStore {
  private fd: number | null = null;
  private bytes = 0;
  /** The file ends inside a line (a write was cut short): the next append ends it first. */
  private endsMidLine = false;

  constructor(readonly file: string) {}

  /** Every whole event in the file, oldest first; what a torn write left of a line is skipped. */
  readAll(): StudioEvent[] {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const events: StudioEvent[] = [];
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      const event = parseLine(line);
      if (event) events.push(event);
    }
    return events;
  }

  /** Append one event; returns the file size afterwards. Throws when the line could not be written whole. */
  append(event: StudioEvent): number {
    const fd = this.open();
    const line = Buffer.from(JSON.stringify(event) + '\n');
    this.writeFully(fd, this.endsMidLine ? Buffer.concat([Buffer.of(NEWLINE), line]) : line);
    return this.bytes;
  }

  /** Replace the file with exactly `events`, atomically (temp file + rename). */
  rewrite(events: readonly StudioEvent[]): void {
    const tmp = `${this.file}.${process.pid}.tmp`;
    const body = events.map((e) => JSON.stringify(e) + '\n').join('');
    fs.writeFileSync(tmp, body, { mode: 0o600 });
    this.close();
    fs.renameSync(tmp, this.file);
    this.bytes = Buffer.byteLength(body);
    this.endsMidLine = false;
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }

  /** `writeSync` may write less than asked (a short write); keep going until all is written or it throws. */
  private writeFully(fd: number, data: Buffer): void {
    let written = 0;
    try {
      while (written < data.length) {
        const n = fs.writeSync(fd, data, written);
        if (n <= 0) throw new Error(`could not write ${this.file}: the write stopped at ${written} of ${data.length} bytes`);
        written += n;
      }
    } finally {
      this.bytes += written;
      if (written > 0) this.endsMidLine = data[written - 1] !== NEWLINE;
    }
  }

  private open(): number {
    if (this.fd === null) {
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      // Events name jobs, files and addresses: readable by Studio's user only. Opened for reading
      // too, to see how the file ends.
      const fd = fs.openSync(this.file, 'a+', 0o600);
      if (process.platform !== 'win32') fs.fchmodSync(fd, 0o600);
      this.bytes = fs.fstatSync(fd).size;
      this.endsMidLine = this.bytes > 0 && lastByte(fd, this.bytes) !== NEWLINE;
      this.fd = fd;
    }
    return this.fd;
  }
}

function lastByte(fd: number, size: number): number {
  const one = Buffer.alloc(1);
  fs.readSync(fd, one, 0, 1, size - 1);
  return one[0]!;
}

/**
 * One line as an event. A line that does not parse may be a torn line with a whole event glued
 * after it (files written before torn lines were ended): the whole event is kept.
 */
function parseLine(line: string): StudioEvent | null {
  const whole = parseEvent(line);
  if (whole) return whole;
  for (let at = line.indexOf(EVENT_START, 1); at > 0; at = line.indexOf(EVENT_START, at + 1)) {
    const glued = parseEvent(line.slice(at));
    if (glued) return glued;
  }
  return null;
}

function parseEvent(text: string): StudioEvent | null {
  try {
    const parsed = JSON.parse(text) as StudioEvent;
    return parsed && typeof parsed.id === 'string' && typeof parsed.type === 'string' ? parsed : null;
  } catch {
    return null;
  }
}
