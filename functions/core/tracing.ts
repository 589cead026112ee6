import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** The X-Ray chunk's file name, beside the handler bundle (lib/bundling.ts builds it from ./xray.ts). */
export const xrayChunkFile = 'xray.mjs';

/**
 * An X-Ray subsegment for every DynamoDB call, added to the client's middleware
 * stack. The X-Ray SDK is a file of its own beside the bundle, imported only
 * when tracing is on: bundled in, its 110 KB would be parsed at every cold start,
 * traced or not, and importing it turns on async_hooks for the whole process
 * (cls-hooked), which would slow every request of a stage without tracing, and
 * the local server, tests and benchmark. Only a deployed bundle has the chunk:
 * TRACING is for the stack to set.
 */
export async function traceDynamoClient(client: DynamoDBClient, chunk = new URL(`./${xrayChunkFile}`, import.meta.url)): Promise<DynamoDBClient> {
  const xray = (await import(chunk.href)) as typeof import('./xray');
  return xray.captureAWSv3Client(client);
}
