/**
 * Studio's own URL (the desktop window and the chat bot use it) follows the address it bound:
 * loopback when it listens everywhere, else that one address (127.0.0.1 would not answer then).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let t: TestStudio | null = null;
afterEach(async () => {
  await t?.stop();
  t = null;
});

describe('Studio.url', () => {
  it('names the single address Studio listens on', async () => {
    t = await startTestStudio({ env: { STUDIO_HOST: '127.0.0.2' } });
    expect(t.studio.url).toBe(`http://127.0.0.2:${t.studio.port}`);
    expect((await fetch(`${t.studio.url}/api/health`)).status).toBe(200);
  });

  it('is loopback when Studio listens on every interface', async () => {
    t = await startTestStudio({ env: { STUDIO_HOST: '0.0.0.0' } });
    expect(t.studio.url).toBe(`http://127.0.0.1:${t.studio.port}`);
    expect((await fetch(`${t.studio.url}/api/health`)).status).toBe(200);
  });
});
