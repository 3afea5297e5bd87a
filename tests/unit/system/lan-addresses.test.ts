import type os from 'node:os';
import { describe, expect, it } from 'vitest';
import { lanUrls } from '../../../server/system/lan-addresses.js';

const nic = (address: string, family: 'IPv4' | 'IPv6', internal = false) => ({ address, family, internal, netmask: '', mac: '', cidr: null }) as os.NetworkInterfaceInfo;
const INTERFACES = {
  lo: [nic('127.0.0.1', 'IPv4', true), nic('::1', 'IPv6', true)],
  docker0: [nic('203.0.113.5', 'IPv4')],
  wlan0: [nic('192.168.1.20', 'IPv4'), nic('fe80::1', 'IPv6')],
  usb0: [nic('169.254.3.4', 'IPv4')],
};

describe('lanUrls', () => {
  it('lists the IPv4 interface addresses when Studio listens on every interface, private ones first', () => {
    expect(lanUrls({ host: '0.0.0.0', port: 8188, tls: false, loopbackReason: null, interfaces: INTERFACES })).toEqual({
      urls: ['http://192.168.1.20:8188', 'http://203.0.113.5:8188', 'http://169.254.3.4:8188'],
      reason: null,
    });
  });

  it('gives the one address Studio bound, with https when it serves TLS', () => {
    expect(lanUrls({ host: '192.168.1.20', port: 9000, tls: true, loopbackReason: null, interfaces: INTERFACES }).urls).toEqual(['https://192.168.1.20:9000']);
    expect(lanUrls({ host: 'fd00::2', port: 9000, tls: false, loopbackReason: null }).urls).toEqual(['http://[fd00::2]:9000']);
  });

  it('says why there is none on loopback, naming the weak key when that is the cause', () => {
    expect(lanUrls({ host: '127.0.0.1', port: 8188, tls: false, loopbackReason: 'default-key' })).toEqual({ urls: [], reason: expect.stringMatching(/built-in API key.*restart/) });
    expect(lanUrls({ host: '127.0.0.1', port: 8188, tls: false, loopbackReason: 'short-key' }).reason).toMatch(/shorter than 16 characters/);
    expect(lanUrls({ host: '127.0.0.1', port: 8188, tls: false, loopbackReason: null }).reason).toMatch(/STUDIO_HOST=127\.0\.0\.1/);
  });

  it('says so when the machine has no network address', () => {
    expect(lanUrls({ host: '0.0.0.0', port: 8188, tls: false, loopbackReason: null, interfaces: { lo: INTERFACES.lo } })).toEqual({ urls: [], reason: expect.stringMatching(/no network address/) });
  });
});
