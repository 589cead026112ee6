import { appendFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What the test files saw, kept for the checks that run once the whole suite is done
 * (`test/after-run/`): `npm test` names a fresh directory in `TEST_EVIDENCE_DIR`, each
 * jest worker appends JSON lines to files of its own there, and the after-run checks
 * read them all. Outside `npm test` (no directory named) nothing is recorded.
 */
const directory = process.env.TEST_EVIDENCE_DIR;

export function evidenceEnabled(): boolean {
  return directory !== undefined && directory !== '';
}

/** Appends one record of `kind`; synchronous, so a record is on disk before the worker can exit. */
export function recordEvidence(kind: string, record: unknown): void {
  if (!evidenceEnabled()) return;
  appendFileSync(join(directory!, `${kind}.${process.pid}.jsonl`), `${JSON.stringify(record)}\n`);
}

/** Every record of `kind` the run's workers appended. */
export function readEvidence<T>(kind: string): T[] {
  if (!evidenceEnabled() || !existsSync(directory!)) return [];
  return readdirSync(directory!)
    .filter((name) => name.startsWith(`${kind}.`) && name.endsWith('.jsonl'))
    .flatMap((name) => readFileSync(join(directory!, name), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as T));
}
