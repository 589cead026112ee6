import { AsyncLocalStorage } from 'node:async_hooks';
import type { FunctionName } from '../functions/routes';

/**
 * Which deployed function the local server or consumer is standing in for
 * while it runs a piece of code: on AWS each function runs under its own IAM
 * role, locally they all share one process. Whatever watches AWS calls (the
 * tests' IAM conformance check) asks this to know whose role a call needs.
 * Lambda never loads local/, so this costs the deployed functions nothing.
 */
const serving = new AsyncLocalStorage<FunctionName>();

/** Runs `work` as `name` would run on AWS; calls it makes, and timers it starts, belong to `name`. */
export function serveAs<T>(name: FunctionName, work: () => T): T {
  return serving.run(name, work);
}

/** The function being served, or undefined outside any (test seeding, the admin CLI, the server's own plumbing). */
export function servingFunction(): FunctionName | undefined {
  return serving.getStore();
}
