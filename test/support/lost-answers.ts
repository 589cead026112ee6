import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/**
 * Makes DynamoDB's answer to a command get lost after the store applied it: the
 * request reaches the store, then the attempt fails as a timed-out socket does.
 * Added inside the SDK's retry loop (deserialize step), so the SDK sends the
 * same request again, which is exactly what happens on AWS after a timeout or a
 * dropped connection. `lose(attempt)` picks the attempts (1-based, counted per
 * command name) whose answers are lost.
 */
export function loseAnswers(client: DynamoDBClient, commandName: string, lose: (attempt: number) => boolean) {
  let attempts = 0;
  let lost = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== commandName) return next(args);
      const attempt = ++attempts;
      const result = await next(args);
      if (!lose(attempt)) return result;
      lost++;
      throw Object.assign(new Error('answer lost after the store applied the write (injected)'), { name: 'TimeoutError' });
    },
    { step: 'deserialize', name: 'loseAnswers', priority: 'high' },
  );
  return { attempts: () => attempts, lost: () => lost };
}

/** Only the first attempt's answer is lost: the SDK's own retry then meets a write already applied. */
export const firstOnly = (attempt: number) => attempt === 1;

/**
 * Refuses the attempts `refuse` picks (1-based, per command name) the way
 * DynamoDB refuses a transaction whose token's first attempt is still running,
 * before anything reaches the store. The SDK retries this error as throttling,
 * under the same token, until its attempts run out; refusing attempts 2 to 4
 * outlasts it, so the caller's own handling decides.
 */
export function answerInProgress(client: DynamoDBClient, commandName: string, refuse: (attempt: number) => boolean) {
  let attempts = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== commandName || !refuse(++attempts)) return next(args);
      throw Object.assign(new Error('transaction in progress (injected)'), {
        name: 'TransactionInProgressException',
        $fault: 'client',
        $metadata: { httpStatusCode: 400 },
      });
    },
    { step: 'deserialize', name: 'answerInProgress', priority: 'high' },
  );
}
