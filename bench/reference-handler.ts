import { referenceHandler } from './reference-stack';

/**
 * The yardstick of the bundle budget (reference-stack.ts): each function's
 * cold start is judged against this one, measured in the same run on the same
 * machine, so what the budget weighs is our own code, never the libraries the
 * project chose to use.
 */
export const handler = referenceHandler();
