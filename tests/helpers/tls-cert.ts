/**
 * A self-signed certificate for `studio.lan` (and 127.0.0.1) made by openssl for one test, valid a
 * day: what `STUDIO_TLS_CERT` and `STUDIO_TLS_KEY` point at. `remove()` deletes its folder.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TestCert {
  cert: string;
  key: string;
  /** `STUDIO_TLS_CERT` and `STUDIO_TLS_KEY` for this certificate. */
  env: { STUDIO_TLS_CERT: string; STUDIO_TLS_KEY: string };
  remove(): void;
}

/** `namesLoopback: false`: the certificate names only `studio.lan`, so a client on 127.0.0.1 cannot verify it. */
export function makeTestCert({ namesLoopback = true } = {}): TestCert {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-tls-'));
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=studio.lan', '-addext', `subjectAltName=DNS:studio.lan${namesLoopback ? ',IP:127.0.0.1' : ''}`, '-keyout', key, '-out', cert], { stdio: 'ignore' });
  return { cert, key, env: { STUDIO_TLS_CERT: cert, STUDIO_TLS_KEY: key }, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
