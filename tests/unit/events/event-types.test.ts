/**
 * One list of event types: the bus takes only these (checked by the compiler), and the README's
 * event table says exactly what the list says.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../../server/config.js';
import { EventBus } from '../../../server/events/event-bus.js';
import { EVENT_TYPE_MEANINGS, EVENT_TYPES } from '../../../server/contracts/events.contract.js';
import { silentLogger } from '../../../server/logging.js';

describe('event types', () => {
  it('are listed in the README exactly as in the code', () => {
    const readme = fs.readFileSync(path.join(APP_ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('### Event types'));
    const rows = [...section.slice(0, section.indexOf('\n\n', section.indexOf('| Type |'))).matchAll(/^\| `([^`]+)` \| (.*) \|$/gm)];
    expect(Object.fromEntries(rows.map((r) => [r[1], r[2]]))).toEqual(EVENT_TYPE_MEANINGS);
  });

  it('cover every type Studio emits, and an unknown one does not compile', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'event-types-'));
    const bus = new EventBus({ file: path.join(dir, 'events.jsonl'), logger: silentLogger });
    const emitUnknown = () =>
      // @ts-expect-error `job.exploded` is not an event type: tsc (part of the checks) fails without this line's error.
      bus.emit('job.exploded', 'info', 'nope');
    expect(typeof emitUnknown).toBe('function');
    for (const type of EVENT_TYPES) expect(bus.emit(type, 'info', type).type).toBe(type);
    bus.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
