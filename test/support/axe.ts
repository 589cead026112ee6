/// <reference lib="dom" />
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface Violation {
  id: string;
  impact: string;
  help: string;
  nodes: string[];
}

/**
 * axe-core's serious and critical violations on the page as it is now. The engine is
 * evaluated through the DevTools protocol, which the dashboard's CSP (no inline script,
 * no eval) does not apply to, so the page is checked under its real policy.
 */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: { id: string; impact?: string | null; help: string; nodes: { target: unknown[] }[] }[] }> } }).axe;
    const { violations } = await axe.run(document, { resultTypes: ['violations'] });
    return violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => ({ id: violation.id, impact: violation.impact!, help: violation.help, nodes: violation.nodes.slice(0, 5).map((node) => node.target.join(' ')) }));
  });
}

/** Fails the test with axe-core's findings when the screen `name` has a serious or critical violation. */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  const found = await seriousViolations(page);
  expect({ screen: name, violations: found }).toEqual({ screen: name, violations: [] });
}
