import { LicenseError } from '../../clients/app-typescript/src/errors';
import { verifyOfflineToken } from '../../clients/app-typescript/src/offline-token';
import { pinKey } from '../../clients/app-typescript/src/signature';
import { acceptAnswer } from '../../clients/app-typescript/src/transport';
import { checkClaims, openLicenseFile } from '../../clients/app-typescript/src/license-file';
import { loadAnswerVectors, type AnswerVector, type FileVector, type TokenVector } from '../support/answer-vectors';

/**
 * The TypeScript library against the recorded answers every client library
 * checks (clients/testdata/answers.json): its own verification code, the one a
 * live answer goes through, gives each case's expected outcome.
 */
const vectors = loadAnswerVectors();
const pinned = pinKey(vectors.public_key_pem);

async function outcome(run: () => unknown): Promise<{ ok: true; value: unknown } | { code: string }> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    if (error instanceof LicenseError) return { code: error.code };
    throw error;
  }
}

function judgeAnswer(vector: AnswerVector) {
  const answer = { status: vector.answer.status, headers: new Headers(vector.answer.headers), body: new TextEncoder().encode(vector.answer.body) };
  const fields = JSON.parse(vector.request.body) as Record<string, unknown>;
  return outcome(() => acceptAnswer(answer, { pinned, nonce: vector.request.nonce, requestDigest: vector.request.content_digest }, fields));
}

describe('the recorded answers (clients/testdata/answers.json)', () => {
  it('hold both kinds of case and name each once', () => {
    const names = [...vectors.answers, ...vectors.tokens].map((vector) => vector.name);
    expect(new Set(names).size).toBe(names.length);
    expect(vectors.answers.filter((vector) => 'ok' in vector.expect).length).toBeGreaterThanOrEqual(2);
    expect(vectors.answers.filter((vector) => 'code' in vector.expect).length).toBeGreaterThanOrEqual(8);
    expect(vectors.tokens.filter((vector) => 'code' in vector.expect).length).toBeGreaterThanOrEqual(8);
    expect(vectors.files.filter((vector) => 'ok' in vector.expect).length).toBeGreaterThanOrEqual(3);
    expect(vectors.files.filter((vector) => 'code' in vector.expect).length).toBeGreaterThanOrEqual(10);
  });

  it.each(vectors.answers.map((vector) => [vector.name, vector] as const))('answer %s: the TypeScript library decides as the case expects', async (_name, vector) => {
    const decided = await judgeAnswer(vector);
    const { expect: expected } = vector;
    if ('message' in expected) expect(decided).toEqual({ ok: true, value: expect.objectContaining({ message: expected.message }) });
    else if ('refused' in expected) expect(decided).toEqual({ code: expected.refused });
    else expect(decided).toEqual({ code: expected.code });
  });

  it.each(vectors.tokens.map((vector) => [vector.name, vector] as const))('token %s: the TypeScript library decides as the case expects', async (_name, vector: TokenVector) => {
    const decided = await outcome(() =>
      verifyOfflineToken(vector.token, pinned, { appId: vector.app_id, license: vector.license, hwid: vector.hwid, ...(vector.nonce === null ? {} : { nonce: vector.nonce }), now: vector.now * 1000 }),
    );
    if ('ok' in vector.expect) expect(decided).toEqual({ ok: true, value: expect.objectContaining({ sub: vector.license }) });
    else expect(decided).toEqual({ code: vector.expect.code });
  });

  it.each(vectors.files.map((vector) => [vector.name, vector] as const))('license file %s: the TypeScript library decides as the case expects', async (_name, vector: FileVector) => {
    const device = { license: vector.license, hwid: vector.hwid };
    const decided = await outcome(async () =>
      checkClaims(await openLicenseFile(vector.file, pinned, device), { appId: vector.app_id, ...device, ...(vector.nonce === null ? {} : { nonce: vector.nonce }), now: vector.now }),
    );
    if ('ok' in vector.expect) expect(decided).toEqual({ ok: true, value: expect.objectContaining({ sub: vector.license, hwid: vector.hwid }) });
    else expect(decided).toEqual({ code: vector.expect.code });
  });
});
