import { createLogger } from '#core/logger';
import { consumeBatch, type ConsumerDeps } from '../../functions/events/consumer';
import type { ServiceEvent, StreamChange } from '../../functions/events/derive';

const subscriptionInsert = (n: number): StreamChange => ({
  eventId: `rec-${n}`,
  sequenceNumber: String(1000 + n),
  kind: 'INSERT',
  at: Date.parse('2026-03-04T10:00:00Z'),
  keys: { pk: `SUB#sub-${n}`, sk: 'SUB' },
  newImage: { pk: `SUB#sub-${n}`, sk: 'SUB', subscription_id: `sub-${n}`, app_id: 'app-1', name: 'Pro' },
});

function fakeDeps(record: (count: number) => Promise<number>, delivered: ServiceEvent[] = []): ConsumerDeps {
  return {
    config: { auditRetentionDays: 90 },
    clock: { now: () => new Date('2026-03-04T10:00:05Z') },
    logger: createLogger('silent'),
    repos: { events: { record: async (works: unknown[]) => record(works.length) } } as unknown as ConsumerDeps['repos'],
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

  it('reports the first record of the step that failed, having delivered nothing of it or after it', async () => {
    const delivered: ServiceEvent[] = [];
    let calls = 0;
    const outcome = await consumeBatch(
      fakeDeps(async (count) => {
        if (++calls === 2) throw new Error('throttled');
        return count;
      }, delivered),
      Array.from({ length: 120 }, (_, n) => subscriptionInsert(n)),
    );
    expect(outcome).toEqual({ recorded: 50, events: 50, failedSequenceNumber: '1050' });
    expect(delivered).toHaveLength(50);
  });
});
