/**
 * Page checks shared by the e2e suites: axe-core's serious and critical violations, and
 * elements wider than a phone's viewport (named, so a failure says which).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page as it is now. */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated rather than added as a script tag: the page's CSP (rightly) refuses inline scripts.
  if (!(await page.evaluate<boolean>("'axe' in window"))) await page.evaluate(AXE_SOURCE);
  // Browser code as text: this project's TypeScript has no DOM types outside the renderer.
  const result = await page.evaluate<{ violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown }> }> }>("axe.run(document, { resultTypes: ['violations'] })");
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}) at ${JSON.stringify(v.nodes.slice(0, 3).map((n) => n.target))}`);
}

/** Elements wider than the viewport (tables in `.table-wrap`, frames and dialogs scroll on their own). */
export async function overflowing(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const width = document.documentElement.clientWidth;
    const out = [];
    if (document.documentElement.scrollWidth > width) out.push('page is ' + document.documentElement.scrollWidth + 'px wide on ' + width + 'px');
    for (const el of Array.from(document.querySelectorAll('main *'))) {
      const box = el.getBoundingClientRect();
      if (box.width > 0 && box.right > width + 1 && !el.closest('.table-wrap, .frame, dialog')) out.push(el.tagName.toLowerCase() + '.' + String(el.className) + ' right edge ' + Math.round(box.right));
    }
    return out.slice(0, 5);
  })()`);
}
