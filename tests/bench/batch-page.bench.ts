/**
 * The Batch page with 500 cells (issue 45), in Chromium against the built renderer: from the click
 * on the batch in the Batches list (a page change inside the app) until all 500 cells are in the
 * page, the batch's answer fetched included; median of 5. The batch is a 25 × 20 grid on the
 * stand-in at its fastest, run to the end before measuring (every cell has its thumbnail).
 */
import { launchBrowser, newSessionPage } from '../helpers/browser.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';
import { plantModels, SHIPPED_MODELS } from '../helpers/runner.js';
import { startTestStudio } from '../helpers/studio.js';
import { until } from '../helpers/studio-ws.js';
import type { BatchCreated, BatchDetail } from '../../server/contracts/batches.contract.js';
import { TARGETS, type TargetRow } from './targets.js';

const RUNS = 5;

/** Run the Batch page benchmark; its row for the closing table. */
export async function run(_root: string): Promise<TargetRow[]> {
  ensureRendererBuilt();
  const t = await startTestStudio({ startEngine: true, env: { STANDIN_STEP_MS: '0', STANDIN_NODE_MS: '0' } });
  const browser = await launchBrowser();
  try {
    plantModels(t.dir, SHIPPED_MODELS);
    await until(async () => (await t.studio.engineModule.client.queue().catch(() => null)) !== null, 'the stand-in', 30_000);
    const axes = [
      { input: 'cfg', values: { from: 1, to: 13, step: 0.5 } },
      { input: 'steps', values: { from: 1, to: 20, step: 1 } },
    ];
    const res = await t.api('/api/admin/batches', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ workflow_id: 'txt2img-sdxl', kind: 'grid', axes, params: {} }) });
    const created = (await res.json()) as BatchCreated;
    if (res.status !== 200) throw new Error(`batch refused: ${res.status} ${JSON.stringify(created)}`);
    await until(async () => ((await (await t.api(`/api/admin/batches/${created.id}`)).json()) as BatchDetail).status === 'completed' || undefined, 'the batch completed', 600_000);
    const { context, page } = await newSessionPage(browser, t);
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      await page.goto(`${t.url}/batches`);
      const link = page.getByRole('link', { name: /grid of 500/ });
      await link.waitFor();
      // Started in the page at the click; ends on the first frame with every cell in the DOM.
      await page.evaluate(`(() => {
        window.__batchMs = null;
        const link = [...document.querySelectorAll('a')].find((a) => /grid of 500/.test(a.textContent));
        const t0 = performance.now();
        const check = () => (document.querySelectorAll('table.grid .cell').length >= 500 ? (window.__batchMs = performance.now() - t0) : requestAnimationFrame(check));
        link.click();
        requestAnimationFrame(check);
      })()`);
      // Polled with evaluate: the page's CSP refuses the string functions waitForFunction sends.
      times.push(await until(() => page.evaluate<number | null>('window.__batchMs'), 'all 500 cells in the page', 30_000));
    }
    await context.close();
    const median = [...times].sort((a, b) => a - b)[Math.floor(RUNS / 2)]!;
    console.log(`Batch page of 500 cells, click → every cell in the page (its data fetched included): median ${median.toFixed(0)} ms of ${times.map((n) => n.toFixed(0)).join(', ')}`);
    return [{ measure: 'Batch page with 500 cells rendered', target: TARGETS.batchPage.text, value: `${median.toFixed(0)} ms`, met: median < TARGETS.batchPage.ms }];
  } finally {
    await browser.close();
    await t.stop();
  }
}
