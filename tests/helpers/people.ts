/**
 * People of a test Studio (issue 43): add one with the owner's key, sign them in by name and
 * password, make them a personal key, and open a WebSocket as them.
 */
import WebSocket from 'ws';
import type { KeyScope } from '../../server/contracts/users.contract.js';
import type { TestStudio } from './studio.js';

export interface Person {
  id: string;
  name: string;
  password: string;
}

/** Add a person through `POST /api/admin/users` (with the owner's key unless `as` says otherwise). */
export async function addPerson(t: TestStudio, name: string, role: 'admin' | 'member' | 'viewer', extra: Record<string, unknown> = {}): Promise<Person> {
  const password = `pw-${name}-0123456789`;
  const res = await t.api('/api/admin/users', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name, role, password, ...extra }) });
  if (res.status !== 200) throw new Error(`adding ${name}: ${res.status} ${await res.text()}`);
  return { id: ((await res.json()) as { id: string }).id, name, password };
}

/** `POST /api/auth/login` by name and password. */
export function passwordLogin(t: TestStudio, name: string, password: string): Promise<Response> {
  return fetch(`${t.url}/api/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name, password }) });
}

/** Sign a person in; the `session=…` cookie pair. */
export async function signIn(t: TestStudio, person: Person): Promise<string> {
  const res = await passwordLogin(t, person.name, person.password);
  if (res.status !== 200) throw new Error(`signing in ${person.name}: ${res.status} ${await res.text()}`);
  return (res.headers.get('set-cookie') ?? '').split(';')[0]!;
}

/** fetch as whoever the headers name (a cookie or a personal key). */
export function as(t: TestStudio, auth: { cookie: string } | { key: string }, pathname: string, init: RequestInit = {}): Promise<Response> {
  const headers: Record<string, string> = { ...(init.headers as Record<string, string>), ...('cookie' in auth ? { Cookie: auth.cookie } : { 'X-API-Key': auth.key }) };
  return fetch(t.url + pathname, { ...init, redirect: 'manual', headers });
}

/** JSON body helper. */
export function json(method: string, body: unknown): RequestInit {
  return { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
}

/** Make a personal key as the signed-in person. */
export async function makeKey(t: TestStudio, cookie: string, scope: KeyScope, name = `${scope} key`): Promise<{ id: string; key: string }> {
  const res = await as(t, { cookie }, '/api/me/keys', json('POST', { name, scope }));
  if (res.status !== 200) throw new Error(`making a ${scope} key: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id: string; key: string };
}

export interface WatchedSocket {
  ws: WebSocket;
  frames: Array<{ type: string; data: Record<string, unknown> }>;
  closed: { code: number } | null;
}

/** Open `/ws` with a cookie or a personal key; resolves once open (rejects on a refused handshake). */
export function openSocket(t: TestStudio, auth: { cookie: string } | { key: string }): Promise<WatchedSocket> {
  return new Promise((resolve, reject) => {
    const headers = 'cookie' in auth ? { Cookie: auth.cookie } : { 'X-API-Key': auth.key };
    const ws = new WebSocket(`${t.url.replace('http', 'ws')}/ws`, { headers });
    const watched: WatchedSocket = { ws, frames: [], closed: null };
    ws.on('message', (data: Buffer) => watched.frames.push(JSON.parse(data.toString('utf8')) as WatchedSocket['frames'][number]));
    ws.on('close', (code) => (watched.closed = { code }));
    ws.on('open', () => resolve(watched));
    ws.on('error', reject);
  });
}
