import { describe, expect, it, vi } from 'vitest';

vi.mock('electron', async () => (await import('../../helpers/fake-electron.js')).electronModule);

const { sessionCookieDetails } = await import('../../../main/session-handoff.js');
const { describeStartupError } = await import('../../../main/fatal-error.js');
const { lanUrl } = await import('../../../main/studio-handle.js');
const { ipcHandlers, isStudioSender, isWebUrl } = await import('../../../main/ipc.js');
const { electronModule } = await import('../../helpers/fake-electron.js');
const { ConfigError } = await import('../../../server/config.js');
const { DatabaseTooNewError } = await import('../../../server/db/database.js');
const { DatabaseCorruptError } = await import('../../../server/db/database-check.js');
const fs = await import('node:fs');
const os = await import('node:os');
const path = await import('node:path');

describe('the cookie hand-off', () => {
  it('turns a session minted in-process into Electron cookie details', () => {
    const details = sessionCookieDetails('http://127.0.0.1:8000', 'abc.def', 1_000_000);
    expect(details).toEqual({
      url: 'http://127.0.0.1:8000',
      name: 'session',
      value: 'abc.def',
      path: '/',
      httpOnly: true,
      secure: true,
      sameSite: 'strict',
      expirationDate: 1000 + 86400,
    });
  });
});

describe('startup errors', () => {
  it('explains a taken port, a bad config, a newer database and an unwritable directory, naming the log', () => {
    const port = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE', port: 8000 });
    expect(describeStartupError(port, '/d/logs/main.log').message).toMatch(/port 8000 is already in use[\s\S]*\/d\/logs\/main\.log/);
    expect(describeStartupError(new ConfigError('STUDIO_PORT must be…'), 'l').message).toMatch(/configuration is invalid/);
    expect(describeStartupError(new DatabaseTooNewError('/x.db', 9, 1), 'l').message).toMatch(/newer Studio/);
    const denied = Object.assign(new Error('EACCES'), { code: 'EACCES', path: '/workspace/studio' });
    expect(describeStartupError(denied, 'l').message).toMatch(/not writable \(\/workspace\/studio\)/);
  });
});

describe('a damaged database at desktop start', () => {
  it('says what is wrong and how to restore, and keeps a copy of the file', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-desktop-db-'));
    try {
      const db = path.join(dir, 'studio.db');
      fs.writeFileSync(db, 'not a database');
      const { message } = describeStartupError(new DatabaseCorruptError(db, ['file is not a database']), '/d/logs/main.log');
      expect(message).toContain(`Studio's database ${db} is damaged (SQLite reports: file is not a database), so Studio cannot start.`);
      expect(message).toMatch(/How to restore:\n1\. Stop Studio\.\n2\. .*\.recover/);
      const copies = fs.readdirSync(dir).filter((f) => f.startsWith('studio.db.broken-'));
      expect(copies).toHaveLength(1);
      expect(fs.readFileSync(path.join(dir, copies[0]!), 'utf8')).toBe('not a database');
      expect(message).toContain('/d/logs/main.log');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the LAN address', () => {
  it('is null while the default key keeps Studio on loopback', () => {
    expect(lanUrl({ apiKeyIsDefault: true, host: '127.0.0.1' }, 8000)).toBeNull();
    expect(lanUrl({ apiKeyIsDefault: false, host: '10.1.2.3' }, 8000)).toBe('http://10.1.2.3:8000');
    expect(lanUrl({ apiKeyIsDefault: false, host: '127.0.0.1' }, 8000)).toBeNull();
  });
});

describe('the preload bridge handlers', () => {
  it('reveals only paths inside the data directory and opens only web URLs', async () => {
    const h = ipcHandlers({ version: '1.2.3', origin: () => 'http://127.0.0.1:8000', dataDir: () => '/data/studio', window: () => null });
    expect(await h['app:version']()).toBe('1.2.3');
    expect(await h['shell:reveal']('assets/output/job1')).toBe(true);
    expect(electronModule.shell.showItemInFolder).toHaveBeenCalledWith('/data/studio/assets/output/job1');
    expect(await h['shell:reveal']('../../etc/passwd')).toBe(false);
    expect(await h['shell:reveal']('/etc/passwd')).toBe(false);
    expect(await h['shell:open-external']('https://example.com/x')).toBe(true);
    expect(await h['shell:open-external']('file:///etc/passwd')).toBe(false);
    expect(isWebUrl('javascript:alert(1)')).toBe(false);
  });
});

describe('the IPC sender check', () => {
  it('answers only the page of Studio\'s own origin, not a page the window navigated to or a frame from elsewhere', () => {
    expect(isStudioSender('http://127.0.0.1:8000/run/x', 'http://127.0.0.1:8000')).toBe(true);
    expect(isStudioSender('https://evil.example/', 'http://127.0.0.1:8000')).toBe(false);
    expect(isStudioSender('http://127.0.0.1:8001/', 'http://127.0.0.1:8000')).toBe(false);
    expect(isStudioSender(undefined, 'http://127.0.0.1:8000')).toBe(false);
    expect(isStudioSender('http://127.0.0.1:8000/', null)).toBe(false);
  });
});
