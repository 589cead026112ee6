import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JWTPayload } from 'jose';

export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  body: string;
}

interface VerifierModule {
  contentDigest(body: string): string;
  verifyAnswer(answer: RawAnswer, expected: { jwk: PublicJwk; nonce?: string; requestDigest?: string; license?: string; now?: number }): unknown;
  verifyOfflineToken(token: string, expected: { jwk: PublicJwk; appId: string; nonce?: string; license?: string; hwid?: string }): Promise<JWTPayload>;
}

export const examplesDir = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..', 'docs', 'examples');

/** The docs' own Node verifier (docs/examples/verify-answer.mjs): the tests verify answers exactly as a client would. */
export async function docsVerifier(): Promise<VerifierModule> {
  const file = join(examplesDir, 'verify-answer.mjs');
  return (await import(file)) as VerifierModule;
}

/** POSTs and keeps the body as the exact text sent, for verifying. */
export async function postRaw(baseUrl: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

/** A python3 that has both modules: pyenv's shim may come first on PATH without them, Debian's /usr/bin/python3 has them once installed. */
export function pythonWithModules(): string | undefined {
  for (const candidate of ['python3', '/usr/bin/python3']) {
    try {
      execFileSync(candidate, ['-c', 'import cryptography, jwt'], { stdio: 'ignore', timeout: 20_000 });
      return candidate;
    } catch {
      // Missing, or without the modules: try the next one.
    }
  }
  return undefined;
}
