import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for KMS's JSON protocol (Encrypt, Decrypt) on loopback, so
 * the benchmark can time what a cold start pays for its first KMS call: the
 * client's import and construction, request signing, one HTTP round trip and
 * parsing. It does not encrypt (the "ciphertext" is the plaintext): it is a
 * timing stub, never a key store.
 */
export async function startKmsStub(): Promise<{ endpoint: string; keyId: string; close(): Promise<void> }> {
  const keyId = 'arn:aws:kms:us-east-1:000000000000:key/00000000-0000-4000-8000-000000000000';
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const target = String(request.headers['x-amz-target'] ?? '');
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { Plaintext?: string; CiphertextBlob?: string };
      const answer = target.endsWith('.Encrypt')
        ? { CiphertextBlob: body.Plaintext, KeyId: keyId, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' }
        : target.endsWith('.Decrypt')
          ? { Plaintext: body.CiphertextBlob, KeyId: keyId, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' }
          : undefined;
      response.writeHead(answer ? 200 : 400, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify(answer ?? { __type: 'UnsupportedOperationException' }));
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  return { endpoint: `http://127.0.0.1:${port}`, keyId, close: () => new Promise((closed) => server.close(() => closed())) };
}
