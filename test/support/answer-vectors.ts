import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The recorded answers and offline tokens of clients/testdata/answers.json
 * (made by `npm run record-answers`), which every client library's own suite
 * checks with its own verification code: clients/testdata/README.md.
 */
export interface AnswerVector {
  name: string;
  about: string;
  request: { path: string; body: string; content_digest: string; nonce: string; license: string | null };
  answer: { status: number; headers: Record<string, string>; body: string };
  expect: { ok: true; message: string } | { ok: true; refused: string } | { code: string };
}

export interface TokenVector {
  name: string;
  about: string;
  token: string;
  app_id: string;
  license: string;
  hwid: string;
  /** The nonce of the request the token came with; null for a token read back from storage. */
  nonce: string | null;
  /** Seconds since the epoch to judge the token at. */
  now: number;
  expect: { ok: true } | { code: string };
}

/** A license file as a device gets it (clients/testdata/README.md), judged as a token is: `nonce` the activation request's, null for a file read back from storage. */
export interface FileVector extends Omit<TokenVector, 'token'> {
  /** A compact JWS, or a compact JWE holding one. */
  file: string;
}

export interface AnswerVectors {
  app_id: string;
  public_key_pem: string;
  public_jwk: { kty: 'OKP'; crv: 'Ed25519'; x: string };
  answers: AnswerVector[];
  tokens: TokenVector[];
  files: FileVector[];
}

export const answerVectorsFile = join(import.meta.dirname, '..', '..', 'clients', 'testdata', 'answers.json');

export function loadAnswerVectors(): AnswerVectors {
  return JSON.parse(readFileSync(answerVectorsFile, 'utf8')) as AnswerVectors;
}
