import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, type PutEventsCommandInput, type PutEventsCommandOutput } from '@aws-sdk/client-eventbridge';
import { KMSClient, type DecryptCommandInput, type EncryptCommandInput } from '@aws-sdk/client-kms';
import { SQSClient, type SendMessageBatchCommandInput, type SendMessageCommandInput } from '@aws-sdk/client-sqs';
import { SESv2Client, type SendEmailCommandInput } from '@aws-sdk/client-sesv2';
import type { Mailer } from '#core/mail/mailer';
import { sesMailer } from '#core/mail/ses-mailer';
import type { DeliveryQueue } from '#core/deps';
import type { AttemptMessage } from '../../functions/delivery/queue';
import { sqsDeliveryQueue } from '../../functions/delivery/sqs-queue';
import type { KeyVault } from '#core/key-vault';
import { kmsKeyVault } from '#core/signing/kms-vault';
import { tableDefinition } from '#data/table';
import { servingFunction } from '../../local/serving';
import { evidenceEnabled, recordEvidence } from './evidence';

/**
 * Every AWS call a served function makes (local/serving.ts names it), as IAM
 * authorizes it: one record per action the call needs, with the resource and
 * the condition keys the role's policy tests. The IAM conformance check
 * (test/after-run/iam-conformance.test.ts) judges them against the template.
 * Calls outside any served function (test seeding, the admin CLI) are not recorded.
 */
export interface AwsCall {
  function: string;
  action: string;
  /** `table`, `index/<name>`, `signingKey`, `eventBus`, `deadLetterQueue`, `deliveryQueue` or `senderIdentity`; the check puts in the template's ARN. */
  resource: string;
  /** `dynamodb:LeadingKeys`: the partition key of every item named, or of the partition queried. */
  leadingKeys?: string[];
  /** KMS: the encryption context sent. */
  encryptionContext?: Record<string, string>;
}

export const awsCallsKind = 'aws-calls';

/** Records already written by this worker: the same call made again adds nothing to judge. */
const seen = new Set<string>();

function record(call: Omit<AwsCall, 'function'>): void {
  const served = servingFunction();
  if (!served || !evidenceEnabled()) return;
  const entry: AwsCall = { function: served, ...call };
  const line = JSON.stringify(entry);
  if (seen.has(line)) return;
  seen.add(line);
  recordEvidence(awsCallsKind, entry);
}

type Item = Record<string, unknown>;

/** A key attribute as the document client passes it (a string) or as the SDK marshalled it (`{S}`). */
function text(value: unknown): string {
  if (typeof value === 'string') return value;
  const marshalled = (value as { S?: unknown } | undefined)?.S;
  if (typeof marshalled === 'string') return marshalled;
  throw new Error(`not a string key attribute: ${JSON.stringify(value)}`);
}

const pkOf = (key: Item | undefined): string => text(key?.[tableDefinition.partitionKey]);

/** The value a Query's key condition gives the partition key of the table or of the index it reads. */
function queriedPartition(input: Item): string {
  const index = tableDefinition.globalSecondaryIndexes.find((candidate) => candidate.indexName === input.IndexName);
  const attribute = index ? index.partitionKey : tableDefinition.partitionKey;
  const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = (input.ExpressionAttributeValues ?? {}) as Item;
  for (const match of String(input.KeyConditionExpression).matchAll(/([#\w]+)\s*=\s*(:\w+)/g)) {
    if ((names[match[1]!] ?? match[1]) === attribute) return text(values[match[2]!]);
  }
  throw new Error(`no partition value in ${String(input.KeyConditionExpression)}`);
}

const transactItemActions: Record<string, string> = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem', Get: 'GetItem' };

/** What IAM checks for one DynamoDB request: a transaction is authorized item by item, under the item's own action. */
export function dynamoCalls(command: string, input: Item): Omit<AwsCall, 'function'>[] {
  const operation = command.replace(/Command$/, '');
  const action = (name: string) => `dynamodb:${name}`;
  switch (operation) {
    case 'GetItem':
    case 'PutItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return [{ action: action(operation), resource: 'table', leadingKeys: [pkOf((input.Key ?? input.Item) as Item)] }];
    case 'BatchGetItem':
      return Object.values(input.RequestItems as Record<string, { Keys: Item[] }>).map((request) => ({
        action: action(operation),
        resource: 'table',
        leadingKeys: [...new Set(request.Keys.map(pkOf))].sort(),
      }));
    case 'BatchWriteItem':
      return Object.values(input.RequestItems as Record<string, { PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } }[]>).map((requests) => ({
        action: action(operation),
        resource: 'table',
        leadingKeys: [...new Set(requests.map((request) => pkOf(request.PutRequest?.Item ?? request.DeleteRequest?.Key)))].sort(),
      }));
    case 'TransactWriteItems':
    case 'TransactGetItems':
      return (input.TransactItems as Record<string, { Key?: Item; Item?: Item }>[]).map((entry) => {
        const [kind, item] = Object.entries(entry)[0]!;
        return { action: action(transactItemActions[kind]!), resource: 'table', leadingKeys: [pkOf(item.Key ?? item.Item)] };
      });
    case 'Query':
      return [{ action: action(operation), resource: input.IndexName ? `index/${String(input.IndexName)}` : 'table', leadingKeys: [queriedPartition(input)] }];
    default:
      // Scan and the table's control plane name no partition: IAM sees no LeadingKeys.
      return [{ action: action(operation), resource: input.IndexName ? `index/${String(input.IndexName)}` : 'table' }];
  }
}

/** Records what a served function sends through this client (and the document client built on it). */
export function captureDynamoCalls(client: DynamoDBClient): void {
  if (!evidenceEnabled()) return;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      for (const call of dynamoCalls(context.commandName ?? 'unknown', args.input as Item)) record(call);
      return next(args);
    },
    // Before the SDK's retry loop: a call is authorized once, however often it is sent.
    { step: 'build', name: 'iamConformanceCapture' },
  );
}

type Answer = (command: string, input: Item) => Item | Promise<Item>;

/** A client whose requests never leave the process: each is recorded, then answered by `answer`. */
function answeredLocally<C extends KMSClient | EventBridgeClient | SQSClient | SESv2Client>(client: C, service: string, resource: string, answer: Answer): C {
  // The clients' stacks differ only in their input and output types, which this middleware does not use.
  const stack = client.middlewareStack as unknown as { add(middleware: (next: unknown, context: { commandName?: string }) => (args: { input: unknown }) => Promise<unknown>, options: object): void };
  stack.add(
    (_next, context) => async (args) => {
      const command = (context.commandName ?? 'unknown').replace(/Command$/, '');
      const input = args.input as Item;
      // SQS authorizes SendMessageBatch as SendMessage.
      const action = service === 'sqs' ? command.replace(/Batch$/, '') : command;
      const encryptionContext = input.EncryptionContext as Record<string, string> | undefined;
      record({ action: `${service}:${action}`, resource, ...(encryptionContext ? { encryptionContext } : {}) });
      return { output: { $metadata: {}, ...(await answer(command, input)) }, response: {} } as never;
    },
    { step: 'initialize', name: 'answeredLocally' },
  );
  return client;
}

const placeholders = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };

/**
 * The deployed functions' KMS vault (functions/core/signing/kms-vault.ts), its requests
 * recorded and answered by `local`: the encryption context the code sends is
 * what binds the ciphertext to the application, as KMS would.
 */
export function kmsShapedVault(local: KeyVault): KeyVault {
  const kms = answeredLocally(new KMSClient(placeholders), 'kms', 'signingKey', async (command, input) => {
    const appId = ((input as unknown as EncryptCommandInput | DecryptCommandInput).EncryptionContext ?? {}).app_id ?? '';
    if (command === 'Encrypt') return { CiphertextBlob: Buffer.from(await local.encrypt(appId, (input as unknown as EncryptCommandInput).Plaintext!), 'base64') };
    return { Plaintext: await local.decrypt(appId, Buffer.from((input as unknown as DecryptCommandInput).CiphertextBlob!).toString('base64')) };
  });
  return kmsKeyVault(kms, 'signing-key');
}

/**
 * EventBridge and SQS for the events function's sink (functions/events/sinks.ts),
 * recorded and answered here: the bus accepts every entry `refuse` does not name, the queue hands each
 * message body to `deadLetter`.
 */
export function eventClients(
  refuse: (entry: NonNullable<PutEventsCommandInput['Entries']>[number]) => boolean = () => false,
  deadLetter: (body: string) => void = () => undefined,
) {
  const bus = answeredLocally(new EventBridgeClient(placeholders), 'events', 'eventBus', (_command, input) => {
    const entries = ((input as unknown as PutEventsCommandInput).Entries ?? []).map((entry) =>
      refuse(entry) ? { ErrorCode: 'InternalFailure', ErrorMessage: 'refused by the test' } : { EventId: 'local' },
    );
    const answer: Partial<PutEventsCommandOutput> = { Entries: entries, FailedEntryCount: entries.filter((entry) => 'ErrorCode' in entry).length };
    return answer as unknown as Item;
  });
  const sqs = answeredLocally(new SQSClient(placeholders), 'sqs', 'deadLetterQueue', (_command, input) => {
    const entries = (input as unknown as SendMessageBatchCommandInput).Entries ?? [];
    for (const entry of entries) deadLetter(entry.MessageBody!);
    return { Successful: entries.map((entry) => ({ Id: entry.Id, MessageId: 'local', MD5OfMessageBody: '' })), Failed: [] };
  });
  return { bus, sqs };
}

/**
 * The deployed SQS delivery queue (functions/delivery/sqs-queue.ts), its requests
 * recorded and each message handed to `target` with the delay SQS was asked for.
 */
export function sqsShapedQueue(target: DeliveryQueue): DeliveryQueue {
  const sqs = answeredLocally(new SQSClient(placeholders), 'sqs', 'deliveryQueue', async (_command, input) => {
    const message = input as unknown as SendMessageCommandInput;
    await target.send(JSON.parse(message.MessageBody!) as AttemptMessage, message.DelaySeconds ?? 0);
    return { MessageId: 'local', MD5OfMessageBody: '' };
  });
  return sqsDeliveryQueue(sqs, 'https://sqs.local/webhook-deliveries');
}

/** The address the SES-shaped mailer sends from, of the identity the IAM conformance check's stack names. */
export const testSenderAddress = 'no-reply@example.com';

/**
 * The deployed functions' SES mailer (functions/core/mail/ses-mailer.ts), its SendEmail calls
 * recorded against the stack's sender identity and each message handed to `target` (the tests'
 * outbox) as SES would deliver it.
 */
export function sesShapedMailer(target: Mailer): Mailer {
  const ses = answeredLocally(new SESv2Client(placeholders), 'ses', 'senderIdentity', async (_command, input) => {
    const email = input as unknown as SendEmailCommandInput;
    const simple = email.Content!.Simple!;
    const fromName = /^"((?:[^"\\]|\\.)*)" </.exec(email.FromEmailAddress!)?.[1]?.replace(/\\(.)/g, '$1');
    await target.send({
      to: email.Destination!.ToAddresses![0]!,
      subject: simple.Subject!.Data!,
      text: simple.Body!.Text!.Data!,
      html: simple.Body!.Html!.Data!,
      ...(fromName === undefined ? {} : { fromName }),
    });
    return { MessageId: 'local' };
  });
  return sesMailer(ses, testSenderAddress);
}
