/** The stand-in answers cross-origin requests like the engine's origin_only_middleware. */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { engineRefusesOrigin } from '../../../server/standin/origin-check.util.js';

const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

describe('the engine origin check', () => {
  it('refuses a page of another origin talking to a loopback engine', () => {
    expect(engineRefusesOrigin(req({ host: '127.0.0.1:8188', origin: 'http://evil.example' }))).toBe(true);
    expect(engineRefusesOrigin(req({ host: '127.0.0.1:8188', origin: 'http://127.0.0.1:9999' }))).toBe(true);
    expect(engineRefusesOrigin(req({ host: '127.0.0.1:8188', origin: 'http://localhost:8188' }))).toBe(true);
    expect(engineRefusesOrigin(req({ host: '127.0.0.1:8188', 'sec-fetch-site': 'cross-site' }))).toBe(true);
  });

  it('lets its own pages, clients without Origin and non-loopback hosts through', () => {
    expect(engineRefusesOrigin(req({ host: '127.0.0.1:8188', origin: 'http://127.0.0.1:8188' }))).toBe(false);
    expect(engineRefusesOrigin(req({ host: '127.0.0.1:8188' }))).toBe(false);
    expect(engineRefusesOrigin(req({ host: '127.0.0.1:8188', origin: 'http://127.0.0.1' }))).toBe(false);
    expect(engineRefusesOrigin(req({ host: '192.168.1.5:8188', origin: 'http://evil.example' }))).toBe(false);
    expect(engineRefusesOrigin(req({ host: '127.0.0.1:8188', 'sec-fetch-site': 'same-site' }))).toBe(false);
  });
});
