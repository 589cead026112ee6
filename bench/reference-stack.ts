import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import httpCors from '@middy/http-cors';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import * as z from 'zod/mini';
import { en } from 'zod/locales';
import { readConfig, type Config } from '#core/config';

/**
 * What the bundle budget's yardsticks share: the least a Lambda built on this
 * project's libraries does before its first answer. Middy with the HTTP
 * middlewares every function uses, a zod/mini schema (with zod's English
 * messages) checking the JSON body, the document client and one GetCommand.
 * `first` runs before the read (the KMS reference's Decrypt).
 */
export function referenceHandler(first?: (config: Config) => Promise<unknown>) {
  z.config(en());
  const config = readConfig();
  const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: config.region, endpoint: config.dynamodbEndpoint }));
  const body = z.object({ key: z.string().check(z.minLength(1)) });
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
    .use(httpCors({ origin: '*', disableBeforePreflightResponse: false }))
    .use(httpHeaderNormalizer())
    .use(httpJsonBodyParser({ disableContentTypeCheck: true } as Parameters<typeof httpJsonBodyParser>[0]))
    .handler(async (event) => {
      const input = body.safeParse(event.body);
      if (!input.success) return { statusCode: 400, body: JSON.stringify({ message: input.error.issues[0]!.message }) };
      await first?.(config);
      const { Item } = await doc.send(new GetCommand({ TableName: config.tableName, Key: { pk: 'REFERENCE', sk: input.data.key } }));
      return { statusCode: Item ? 200 : 404, body: JSON.stringify(Item ?? null) };
    });
}
