import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/**
 * An X-Ray subsegment for every DynamoDB call, added to the client's middleware
 * stack. The X-Ray SDK is imported only when tracing is on: importing it costs
 * about 20 ms of cold start and turns on async_hooks for the whole process
 * (cls-hooked), which would slow every request of a stage without tracing, and
 * the local server, tests and benchmark.
 */
export async function traceDynamoClient(client: DynamoDBClient): Promise<DynamoDBClient> {
  const { default: xray } = await import('aws-xray-sdk-core');
  return xray.captureAWSv3Client(client);
}
