/**
 * A torn line in `events.jsonl` (a write cut short by a full disk, a size limit or a crash) must
 * not cost the next event: it used to be glued onto the broken line and both were skipped at the
 * next boot.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../../server/config.js';
import { EventBus } from '../../../server/events/event-bus.js';
import { silentLogger } from '../../../server/logging.js';

let dir: string;
let file: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-events-torn-'));
  file = path.join(dir, 'events.jsonl');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function reload(): string[] {
  const bus = new EventBus({ file, logger: silentLogger });
  bus.load();
  const messages = bus.list({ limit: 5000 }).map((e) => e.message);
  bus.close();
  return messages;
}

describe('events.jsonl with a torn line', () => {
  it('a Studio started on a file that ends mid-line puts its next event on a line of its own', () => {
    const bus = new EventBus({ file, logger: silentLogger });
    for (let i = 0; i < 3; i++) bus.emit('system.restart', 'info', `m${i}`);
    bus.close();
    // The crash: the last write stopped half-way through its line.
    fs.appendFileSync(file, '{"id":"evt_0000torn","type":"t","timesta');
    const again = new EventBus({ file, logger: silentLogger });
    again.load();
    again.emit('system.restart', 'info', 'after the crash');
    again.close();
    expect(reload()).toEqual(['m0', 'm1', 'm2', 'after the crash']);
  });

  it('the loader keeps a whole event that an older Studio glued onto a torn line', () => {
    const bus = new EventBus({ file, logger: silentLogger });
    bus.emit('system.restart', 'info', 'before');
    bus.close();
    const whole = fs.readFileSync(file, 'utf8').trim();
    const glued = whole.replace('before', 'glued').replace(/evt_[0-9a-f]{8}/, 'evt_00000002');
    fs.writeFileSync(file, `${whole}\n{"id":"evt_00000001","type":"t","data":{"job":{"id":"x"${glued}\n`);
    expect(reload()).toEqual(['before', 'glued']);
  });

  // A real short write: the child runs under a file size limit (RLIMIT_FSIZE) that one line
  // crosses, so the kernel writes only part of it and refuses the rest; the limit is then raised
  // (space freed) and the same process emits again.
  it.skipIf(spawnSync('prlimit', ['--version'], { stdio: 'ignore' }).status !== 0)(
    'a write cut short by a full disk costs only that event, in the same process, once space is back',
    async () => {
      const child = spawn(
        'prlimit',
        ['--fsize=2000:unlimited', process.execPath, '--import', 'tsx', path.join(APP_ROOT, 'tests', 'fixtures', 'children', 'events-writer.ts'), file, '12'],
        { cwd: APP_ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
      );
      const failed: string[] = [];
      for await (const line of readline.createInterface({ input: child.stdout })) {
        if (line.startsWith('failed ')) failed.push(line.slice('failed '.length));
        if (line === 'waiting') {
          // prlimit execs node: the child's pid is node's.
          expect(spawnSync('prlimit', [`--pid=${child.pid}`, '--fsize=unlimited:unlimited']).status).toBe(0);
          child.stdin.write('go\n');
        }
        if (line === 'done') break;
      }
      // The limit was hit: some events could not be written, and said so.
      expect(failed.length).toBeGreaterThan(0);
      expect(failed).not.toContain('after');
      const written = Array.from({ length: 12 }, (_, i) => `m${i}`).filter((m) => !failed.includes(m));
      expect(reload()).toEqual([...written, 'after']);
    },
    30_000,
  );
});
