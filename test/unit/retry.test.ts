import { isTransient, withBackoff } from '#data/retry';

const named = (name: string, reasons?: string[]) =>
  Object.assign(new Error(name), { name, ...(reasons ? { CancellationReasons: reasons.map((Code) => ({ Code })) } : {}) });

const fast = { attempts: 4, baseMs: 1, maxMs: 2 };

describe('retries of transient DynamoDB failures', () => {
  it('treat throttling and transaction conflicts as transient, failed conditions as final', () => {
    expect(isTransient(named('ThrottlingException'))).toBe(true);
    expect(isTransient(named('TransactionCanceledException', ['None', 'TransactionConflict']))).toBe(true);
    expect(isTransient(named('TransactionCanceledException', ['ConditionalCheckFailed', 'TransactionConflict']))).toBe(false);
    expect(isTransient(named('ValidationException'))).toBe(false);
  });

  it('retry a transient failure until the operation succeeds', async () => {
    let calls = 0;
    const result = await withBackoff(async () => {
      calls++;
      if (calls < 3) throw named('TransactionCanceledException', ['ThrottlingError']);
      return 'written';
    }, fast);

    expect(result).toBe('written');
    expect(calls).toBe(3);
  });

  it('give up after the last attempt and rethrow, and never retry a final failure', async () => {
    let transientCalls = 0;
    await expect(
      withBackoff(async () => {
        transientCalls++;
        throw named('ProvisionedThroughputExceededException');
      }, fast),
    ).rejects.toThrow('ProvisionedThroughputExceededException');
    expect(transientCalls).toBe(4);

    let finalCalls = 0;
    await expect(
      withBackoff(async () => {
        finalCalls++;
        throw named('ConditionalCheckFailedException');
      }, fast),
    ).rejects.toThrow();
    expect(finalCalls).toBe(1);
  });
});
