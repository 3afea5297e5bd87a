/**
 * `events.jsonl`: one JSON object per line, appended as events happen and read back on boot.
 * Appends are synchronous on an open descriptor so that an event is on disk (in the page cache)
 * before `emit` returns and the order in the file is the order of emission.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { StudioEvent } from '../contracts/events.contract.js';

export class EventsFileStore {
  private fd: number | null = null;
  private bytes = 0;

  constructor(readonly file: string) {}

  /** Every parseable event in the file, oldest first; broken lines (a torn write) are skipped. */
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
      try {
        const parsed = JSON.parse(line) as StudioEvent;
        if (parsed && typeof parsed.id === 'string' && typeof parsed.type === 'string') events.push(parsed);
      } catch {}
    }
    return events;
  }

  /** Append one event; returns the file size afterwards. */
  append(event: StudioEvent): number {
    const fd = this.open();
    const line = Buffer.from(JSON.stringify(event) + '\n');
    fs.writeSync(fd, line);
    this.bytes += line.length;
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
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }

  private open(): number {
    if (this.fd === null) {
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      // Events name jobs, files and addresses: readable by Studio's user only.
      this.fd = fs.openSync(this.file, 'a', 0o600);
      if (process.platform !== 'win32') fs.fchmodSync(this.fd, 0o600);
      this.bytes = fs.fstatSync(this.fd).size;
    }
    return this.fd;
  }
}
