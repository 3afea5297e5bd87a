/** The ways an engine API client presents a Studio key (issue 44): on the door's paths only. */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { doorKey, isDoorPath, loggableUrl } from '../../../server/http/door-credentials.js';
import { requiredReach } from '../../../server/http/route-policy.js';

const req = (url: string, authorization?: string) => ({ url, headers: authorization ? { authorization } : {} }) as unknown as IncomingMessage;

describe('door credentials', () => {
  it('reads Bearer, Basic (the password) and ?token= on /comfy paths', () => {
    expect(doorKey(req('/comfy/prompt', 'Bearer k1'))).toBe('k1');
    expect(doorKey(req('/comfy/api/queue', `Basic ${Buffer.from('anyone:k2').toString('base64')}`))).toBe('k2');
    expect(doorKey(req('/comfy/ws?clientId=a&token=k3'))).toBe('k3');
    expect(doorKey(req('/comfy/prompt', `Basic ${Buffer.from('user-only').toString('base64')}`))).toBeNull();
  });

  it('reads nothing elsewhere in Studio', () => {
    expect(doorKey(req('/api/admin/queue?token=k', 'Bearer k'))).toBeNull();
    expect(isDoorPath('/comfyx/prompt')).toBe(false);
    expect(isDoorPath('/COMFY/prompt')).toBe(true);
  });

  it('masks a ?token= key in the URLs the log shows', () => {
    expect(loggableUrl('/comfy/view?filename=a.png&token=stk_secret123&type=output')).toBe('/comfy/view?filename=a.png&token=***&type=output');
    expect(loggableUrl('/comfy/ws?TOKEN=abc')).toBe('/comfy/ws?TOKEN=***');
  });

  it('needs run to submit and change, read to read', () => {
    expect(requiredReach('POST', '/comfy/prompt')).toBe('run');
    expect(requiredReach('POST', '/comfy/api/upload/image')).toBe('run');
    expect(requiredReach('GET', '/comfy/history')).toBe('read');
    expect(requiredReach('POST', '/comfy/free')).toBe('admin');
    expect(requiredReach('PUT', '/api/admin/comfy-api')).toBe('admin');
    expect(requiredReach('GET', '/api/admin/comfy-api')).toBe('admin');
  });
});
