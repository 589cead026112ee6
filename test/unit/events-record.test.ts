import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Table } from '#data/db';
import { record } from '#data/events.repo';
import type { RecordWork } from '#data/model/audit';

/** A table that keeps the items of each transaction written to it; every write succeeds. */
function transactionLog(): { table: Table; transactions: Record<string, any>[][] } {
  const transactions: Record<string, any>[][] = [];
  const send = async (command: object) => {
    if (command instanceof TransactWriteCommand) transactions.push((command.input.TransactItems ?? []) as Record<string, any>[]);
    return {};
  };
  return { table: { doc: { send } as unknown as Table['doc'], name: 'records' }, transactions };
}

/** A license's stream record with one event and a login counted on `day`. */
const loginWork = (n: number, day: string): RecordWork => ({
  recordId: `rec-${n}`,
  sequenceNumber: String(1000 + n),
  events: [{ id: `event-${n}`, type: 'license.file_issued', app_id: 'app-1', subject: `LIC-${n}`, at: `${day}T10:00:00.000Z`, actor: 'client' }],
  counts: [{ appId: 'app-1', day, counter: 'logins' }],
  additions: [],
  licenseKeyOf: (event) => event.subject,
});

const now = new Date('2026-03-04T10:00:05Z');

describe('record', () => {
  it('fills each transaction up to 100 items: a mark and an audit item per record, one counter update per day', async () => {
    const { table, transactions } = transactionLog();
    const works = Array.from({ length: 40 }, (_, n) => loginWork(n, `2026-03-${String(1 + (n % 28)).padStart(2, '0')}`));

    expect(await record(table, works, now, 90)).toBe(40);

    // The first 28 records, each of its own day, are 84 items; each record after them adds its mark and audit item to a day
    // already counted, so 36 records fill 100 items; the last 4 are 8 items and 4 counter updates.
    expect(transactions.map((items) => items.length)).toEqual([100, 12]);
  });

  it('sums the records of a transaction into one update of their counter item', async () => {
    const { table, transactions } = transactionLog();
    const works = Array.from({ length: 60 }, (_, n) => loginWork(n, '2026-03-04'));

    expect(await record(table, works, now, 90)).toBe(60);

    expect(transactions.map((items) => items.length)).toEqual([99, 23]);
    const logins = transactions.map((items) => items.find((item) => item.Update)!.Update.ExpressionAttributeValues[':logins']);
    expect(logins).toEqual([49, 11]);
  });
});
