import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { SettingsStore } from '../../../server/db/settings.store.js';
import { deviceOf, SignInLog, THIS_MACHINE } from '../../../server/http/sign-in-log.js';

const req = (remoteAddress: string, localAddress: string) => ({ socket: { remoteAddress, localAddress } }) as unknown as IncomingMessage;

function memorySettings(): SettingsStore {
  const rows = new Map<string, string>();
  return { get: (k: string) => rows.get(k) ?? null, set: (k: string, v: string) => void rows.set(k, v), getInt: () => 0 } as unknown as SettingsStore;
}

describe('deviceOf', () => {
  it('names every connection from this machine the same, and another device by its address', () => {
    expect(deviceOf(req('127.0.0.1', '127.0.0.1'))).toBe(THIS_MACHINE);
    expect(deviceOf(req('::1', '::1'))).toBe(THIS_MACHINE);
    expect(deviceOf(req('::ffff:192.168.1.20', '::ffff:192.168.1.20'))).toBe(THIS_MACHINE);
    expect(deviceOf(req('::ffff:192.168.1.77', '::ffff:192.168.1.20'))).toBe('192.168.1.77');
  });
});

describe('SignInLog', () => {
  it('keeps the most recent devices first, each once, and tells when another one signed in', () => {
    const log = new SignInLog(memorySettings());
    expect(log.signedInElsewhere(THIS_MACHINE)).toBe(false);
    log.record(THIS_MACHINE);
    log.record(THIS_MACHINE);
    expect(log.devices()).toEqual([THIS_MACHINE]);
    expect(log.signedInElsewhere(THIS_MACHINE)).toBe(false);
    log.record('192.168.1.77');
    expect(log.devices()).toEqual(['192.168.1.77', THIS_MACHINE]);
    expect(log.signedInElsewhere(THIS_MACHINE)).toBe(true);
    expect(log.signedInElsewhere('192.168.1.77')).toBe(true);
  });

  it('keeps the last twenty and survives a damaged row', () => {
    const settings = memorySettings();
    const log = new SignInLog(settings);
    for (let i = 0; i < 25; i++) log.record(`10.0.0.${i}`);
    expect(log.devices()).toHaveLength(20);
    expect(log.devices()[0]).toBe('10.0.0.24');
    settings.set('auth.sign_in_devices', '{not json');
    expect(log.devices()).toEqual([]);
  });
});
