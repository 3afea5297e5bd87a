/**
 * The Nodes page's store when the server refuses an install URL because the node map gives the
 * package name another repository (409 naming `confirm_source`): it remembers the URL so the page
 * can offer "Preview … anyway", and that preview (and the install it leads to) carries the
 * confirmation; a URL the file named and the user agreed to is sent confirmed from the start.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { useNodesStore } from '../../../renderer/src/stores/nodes.store.js';
import { harness, Reply, type Harness } from './harness.js';

const FORK = 'https://github.com/someone/ComfyUI-Impact-Pack';
const COMMIT = 'a'.repeat(40);

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

describe('nodes store: sources the node map does not give', () => {
  it('offers to go ahead after a source refusal, and sends the confirmation with the preview and the install', async () => {
    const bodies: Record<string, unknown>[] = [];
    h = await harness({
      'POST /api/admin/nodes/install': (_url, body) => {
        const parsed = JSON.parse(body) as Record<string, unknown>;
        bodies.push(parsed);
        if (parsed.confirm_source !== true) return new Reply(409, { detail: 'ComfyUI-Impact-Pack is known to the node map as https://github.com/ltdrdata/ComfyUI-Impact-Pack; … (confirm_source: true).' });
        if (parsed.dry_run === true) return { status: 'preview', name: 'ComfyUI-Impact-Pack', url: FORK, commit: COMMIT, current_commit: null, python: { added: [], upgraded: [], downgraded: [] }, held: [] };
        return { status: 'already_installed', name: 'ComfyUI-Impact-Pack' };
      },
      'GET /api/admin/activity-log': () => [],
      'GET /api/admin/nodes': () => ({ packages: [], total_nodes: 0, total_packages: 0 }),
      'GET /api/admin/nodes/snapshots': () => ({ snapshots: [] }),
    });
    const store = useNodesStore();
    await store.preview(FORK);
    expect(store.sourceConflict).toBe(FORK);
    expect(store.installError).toMatch(/known to the node map/);
    expect(store.pending).toBeNull();

    await store.preview(FORK, true);
    expect(store.sourceConflict).toBeNull();
    expect(store.pending).toMatchObject({ kind: 'install', confirmSource: true });
    await store.confirm();
    expect(bodies).toEqual([
      { url: FORK, dry_run: true },
      { url: FORK, dry_run: true, confirm_source: true },
      { url: FORK, commit: COMMIT, confirm_source: true },
    ]);
  });
});
