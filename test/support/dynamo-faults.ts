import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/**
 * Faults of DynamoDB for the tests that drive the real handlers: added to the
 * SDK client's middleware stack at the deserialize step, which runs once per
 * attempt inside the SDK's retry loop. Attempts are counted per command name,
 * from 1.
 */

/** An error shaped as the SDK throws DynamoDB's answers (a client fault unless `extra` says otherwise). */
export function awsError(name: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(`${name} (injected)`), { name, $fault: 'client', $metadata: { httpStatusCode: 400 }, ...extra });
}

/** Throws `fault(attempt)` for the command it names before the request reaches the store; answers how many attempts it saw. */
export function injectFault(client: DynamoDBClient, commandName: string, fault: (attempt: number) => Error | undefined) {
  let attempts = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== commandName) return next(args);
      const error = fault(++attempts);
      if (error) throw error;
      return next(args);
    },
    { step: 'deserialize', name: `injectedFault:${commandName}`, priority: 'high' },
  );
  return { attempts: () => attempts };
}

/**
 * Makes DynamoDB's answer to a command get lost after the store applied it: the
 * request reaches the store, then the attempt fails as a timed-out socket does,
 * so the SDK sends the same request again, which is exactly what happens on AWS
 * after a timeout or a dropped connection. `lose(attempt)` picks the attempts
 * whose answers are lost.
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
    { step: 'deserialize', name: `loseAnswers:${commandName}`, priority: 'high' },
  );
  return { attempts: () => attempts, lost: () => lost };
}

/** Only the first attempt's answer is lost: the SDK's own retry then meets a write already applied. */
export const firstOnly = (attempt: number) => attempt === 1;

/**
 * A slow store: each attempt of the command is applied by the store as usual,
 * and its answer comes `delayMs` later, as when DynamoDB (or DynamoDB Local on
 * a busy machine) takes that long. `remove()` makes the store fast again.
 */
export function slowAnswers(client: DynamoDBClient, commandName: string, delayMs: number) {
  let attempts = 0;
  const name = `slowAnswers:${commandName}`;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== commandName) return next(args);
      attempts++;
      const result = await next(args);
      await new Promise((done) => setTimeout(done, delayMs));
      return result;
    },
    { step: 'deserialize', name, priority: 'high' },
  );
  return { attempts: () => attempts, remove: () => void client.middlewareStack.remove(name) };
}
