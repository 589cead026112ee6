import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { createLogger, licenseFingerprint } from '#core/logger';
import type { Table } from '#data/db';
import { keys } from '#data/keys';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { consumeBatch, type ConsumerDeps } from '../../functions/events/consumer';
import type { ServiceEvent, StreamChange } from '../../functions/events/derive';
import { createEventsHandler } from '../../functions/events/handler';
import { recordingSink } from '../support/log-evidence';

const subscriptionInsert = (n: number): StreamChange => ({
  eventId: `rec-${n}`,
  sequenceNumber: String(1000 + n),
  kind: 'INSERT',
  at: Date.parse('2026-03-04T10:00:00Z'),
  keys: { pk: `SUB#sub-${n}`, sk: 'SUB' },
  newImage: { pk: `SUB#sub-${n}`, sk: 'SUB', subscription_id: `sub-${n}`, app_id: 'app-1', name: 'Pro' },
});

/** A table that hands each transaction's count of records (their marks) and their ids to `record`, which may throw; every other write succeeds. */
function recordingTable(record: (count: number, recordIds: string[]) => Promise<number>): Table {
  const send = async (command: object) => {
    if (command instanceof TransactWriteCommand) {
      const marks = (command.input.TransactItems ?? []).filter((item) => String(item.Put?.Item?.pk).startsWith(keys.streamRecord('').pk));
      await record(
        marks.length,
        marks.map((item) => String(item.Put!.Item!.pk).slice(keys.streamRecord('').pk.length)),
      );
    }
    return {};
  };
  return { doc: { send } as unknown as Table['doc'], name: 'records' };
}

function fakeDeps(record: (count: number, recordIds: string[]) => Promise<number>, delivered: ServiceEvent[] = [], lines: string[] = []): ConsumerDeps {
  return {
    config: { auditRetentionDays: 90 },
    clock: { now: () => new Date('2026-03-04T10:00:05Z') },
    logger: createLogger('debug', {}, recordingSink(lines)),
    table: recordingTable(record),
    sink: { deliver: async (events) => void delivered.push(...events) },
  };
}

describe('consumeBatch', () => {
  it('records and delivers every record of a batch, in steps, in order', async () => {
    const delivered: ServiceEvent[] = [];
    const steps: number[] = [];
    const outcome = await consumeBatch(
      fakeDeps(async (count) => (steps.push(count), count), delivered),
      Array.from({ length: 120 }, (_, n) => subscriptionInsert(n)),
    );
    expect(outcome).toEqual({ recorded: 120, events: 120 });
    expect(steps).toEqual([50, 50, 20]);
    expect(delivered.map((event) => event.subject)).toEqual(Array.from({ length: 120 }, (_, n) => `sub-${n}`));
  });

  it('does a failed step again record by record: a failure that passes leaves nothing behind', async () => {
    const delivered: ServiceEvent[] = [];
    const steps: number[] = [];
    const outcome = await consumeBatch(
      fakeDeps(async (count) => {
        steps.push(count);
        if (steps.length === 2) throw new Error('throttled');
        return count;
      }, delivered),
      Array.from({ length: 120 }, (_, n) => subscriptionInsert(n)),
    );
    expect(outcome).toEqual({ recorded: 120, events: 120 });
    expect(steps).toEqual([50, 50, ...Array(50).fill(1), 20]);
    expect(delivered.map((event) => event.subject)).toEqual(Array.from({ length: 120 }, (_, n) => `sub-${n}`));
  });

  it('reports the record that fails on its own, every record before it done and nothing after it', async () => {
    const delivered: ServiceEvent[] = [];
    const lines: string[] = [];
    const outcome = await consumeBatch(
      fakeDeps(
        async (count, recordIds) => {
          if (recordIds.includes('rec-73')) throw new Error('item too large');
          return count;
        },
        delivered,
        lines,
      ),
      Array.from({ length: 120 }, (_, n) => subscriptionInsert(n)),
    );
    expect(outcome).toEqual({ recorded: 73, events: 73, failedSequenceNumber: '1073' });
    expect(delivered.map((event) => event.subject)).toEqual(Array.from({ length: 73 }, (_, n) => `sub-${n}`));
    const failure = lines.map((line) => JSON.parse(line)).find((line) => line.message === 'stream record not processed');
    expect(failure).toMatchObject({ level: 'error', sequence_number: '1073', event_id: 'rec-73', error_message: 'item too large' });
  });
});

describe('the events function', () => {
  const streamRecord = (change: StreamChange): DynamoDBRecord => ({
    eventID: change.eventId,
    eventName: change.kind,
    dynamodb: {
      ApproximateCreationDateTime: change.at / 1000,
      SequenceNumber: change.sequenceNumber,
      Keys: marshall(change.keys) as never,
      NewImage: marshall(change.newImage!) as never,
    },
  });

  it('reports a record it cannot read as the batch item that failed, having done the records before it', async () => {
    const delivered: ServiceEvent[] = [];
    const lines: string[] = [];
    const unreadable = streamRecord(subscriptionInsert(2));
    unreadable.dynamodb!.NewImage = { name: { Q: 'no such type' } } as never;
    const handler = createEventsHandler(async () => fakeDeps(async (count) => count, delivered, lines));

    const answer = await handler({ Records: [streamRecord(subscriptionInsert(1)), unreadable, streamRecord(subscriptionInsert(3))] });

    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: '1002' }] });
    expect(delivered.map((event) => event.subject)).toEqual(['sub-1']);
    expect(lines.map((line) => JSON.parse(line)).find((line) => line.message === 'stream record not readable')).toMatchObject({ sequence_number: '1002', event_id: 'rec-2' });
  });

  it('reports the record that cannot be done, so the mapping bisects at it, and answers no failure once past it', async () => {
    const delivered: ServiceEvent[] = [];
    const handler = createEventsHandler(async () =>
      fakeDeps(async (count, recordIds) => {
        if (recordIds.includes('rec-5')) throw new Error('item too large');
        return count;
      }, delivered),
    );
    const records = Array.from({ length: 10 }, (_, n) => streamRecord(subscriptionInsert(n)));

    expect(await handler({ Records: records })).toEqual({ batchItemFailures: [{ itemIdentifier: '1005' }] });
    expect(await handler({ Records: records.slice(6) })).toEqual({ batchItemFailures: [] });
    expect(delivered.map((event) => event.subject)).toEqual(['sub-0', 'sub-1', 'sub-2', 'sub-3', 'sub-4', 'sub-6', 'sub-7', 'sub-8', 'sub-9']);
  });
});

describe('what the consumer logs at debug level', () => {
  const licenseKey = 'Q7M2K-8XRTA-0PZ4N-V3WYB-6HCDE';
  const license = { key: licenseKey, app_id: 'app-1', username: 'logged-user', hwid: 'machine-hwid-1', hwids: ['machine-hwid-1'], status: 'active' };
  const licenseChange: StreamChange = {
    eventId: 'rec-license',
    sequenceNumber: '2000',
    kind: 'MODIFY',
    at: Date.parse('2026-03-04T10:00:00Z'),
    keys: { pk: `LIC#${licenseKey}`, sk: 'LIC' },
    oldImage: { pk: `LIC#${licenseKey}`, sk: 'LIC', ...license, hwid: null, hwids: [] },
    newImage: { pk: `LIC#${licenseKey}`, sk: 'LIC', ...license },
  };
  const blacklistChange: StreamChange = {
    eventId: 'rec-blacklist',
    sequenceNumber: '2001',
    kind: 'INSERT',
    at: Date.parse('2026-03-04T10:00:00Z'),
    keys: { pk: 'APP#app-1', sk: 'BL#hwid#banned-hwid-9' },
    newImage: { pk: 'APP#app-1', sk: 'BL#hwid#banned-hwid-9', app_id: 'app-1', type: 'hwid', value: 'banned-hwid-9', reason: null },
  };

  it('names each event by type and fingerprints, never by key, username or HWID', async () => {
    const lines: string[] = [];
    const delivered: ServiceEvent[] = [];

    await consumeBatch(fakeDeps(async (count) => count, delivered, lines), [licenseChange, blacklistChange]);

    const events = lines.map((line) => JSON.parse(line)).filter((line) => line.message === 'event');
    expect(events.map((line) => [line.type, line.subject])).toEqual([
      ['license.hwid_bound', `license:${licenseFingerprint(licenseKey)}`],
      ['blacklist.added', `hwid:${licenseFingerprint('banned-hwid-9')}`],
    ]);
    expect(delivered[0]!.after).toMatchObject({ key: licenseKey, username: 'logged-user' });
    for (const secret of [licenseKey, 'logged-user', 'machine-hwid-1', 'banned-hwid-9']) {
      expect(lines.filter((line) => line.includes(secret))).toEqual([]);
    }
  });

  it('logs a failed step without the keys its error quotes', async () => {
    const lines: string[] = [];

    const outcome = await consumeBatch(
      fakeDeps(async () => {
        throw new Error(`conditional check failed on LIC#${licenseKey}`);
      }, [], lines),
      [licenseChange],
    );

    expect(outcome.failedSequenceNumber).toBe('2000');
    const failure = lines.find((line) => line.includes('stream record not processed'));
    expect(failure).toContain(licenseFingerprint(licenseKey));
    expect(lines.filter((line) => line.includes(licenseKey))).toEqual([]);
  });
});
