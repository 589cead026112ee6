import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { createLogger } from '#core/logger';
import type { ServiceEvent } from '../../functions/events/derive';
import { eventBridgeSink, eventSource } from '../../functions/events/sinks';

const bus = mockClient(EventBridgeClient);
const sqs = mockClient(SQSClient);
beforeEach(() => {
  bus.reset();
  sqs.reset();
});

const event = (n: number): ServiceEvent => ({
  id: `record-${n}-0`,
  type: 'license.created',
  app_id: 'app-1',
  subject: `KEY-${n}`,
  at: '2026-03-04T10:15:02.000Z',
  actor: 'client',
});

const sink = () =>
  eventBridgeSink({
    bus: new EventBridgeClient({ region: 'us-east-1' }),
    sqs: new SQSClient({ region: 'us-east-1' }),
    busName: 'licensing-test',
    deadLetterQueueUrl: 'https://sqs.example/queue',
    logger: createLogger('silent'),
  });

describe('the EventBridge sink', () => {
  it('puts events 10 to a call, each with the source, its type as detail-type and itself as detail', async () => {
    bus.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [] });
    const events = Array.from({ length: 23 }, (_, n) => event(n));
    await sink().deliver(events);
    const calls = bus.commandCalls(PutEventsCommand);
    expect(calls.map((call) => call.args[0].input.Entries!.length)).toEqual([10, 10, 3]);
    expect(calls[0]!.args[0].input.Entries![0]).toEqual({
      EventBusName: 'licensing-test',
      Source: eventSource,
      DetailType: 'license.created',
      Detail: JSON.stringify(events[0]),
      Time: new Date('2026-03-04T10:15:02.000Z'),
    });
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(0);
  });

  it('sends again only the entries EventBridge refused, then dead-letters those it keeps refusing, with the reason', async () => {
    // Event 2 is throttled once; event 3 is refused every time.
    let attempt = 0;
    bus.on(PutEventsCommand).callsFake((input: { Entries: { Detail: string }[] }) => {
      attempt += 1;
      const entries = input.Entries.map((entry) => {
        const id = JSON.parse(entry.Detail).id;
        if (id === 'record-3-0') return { ErrorCode: 'InternalFailure', ErrorMessage: 'broken' };
        if (id === 'record-2-0' && attempt === 1) return { ErrorCode: 'ThrottlingException', ErrorMessage: 'slow down' };
        return { EventId: `e-${id}` };
      });
      return { FailedEntryCount: entries.filter((entry) => 'ErrorCode' in entry).length, Entries: entries };
    });
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [{ Id: '0', MessageId: 'm', MD5OfMessageBody: '' }], Failed: [] });
    await sink().deliver([event(1), event(2), event(3)]);
    const calls = bus.commandCalls(PutEventsCommand);
    expect(calls[1]!.args[0].input.Entries!.map((entry) => JSON.parse(entry.Detail!).id)).toEqual(['record-2-0', 'record-3-0']);
    expect(calls).toHaveLength(4);
    const dead = sqs.commandCalls(SendMessageBatchCommand);
    expect(dead).toHaveLength(1);
    expect(dead[0]!.args[0].input.Entries!.map((entry) => JSON.parse(entry.MessageBody!))).toEqual([
      { reason: 'InternalFailure: broken', event: event(3) },
    ]);
  });

  it('throws when the dead-letter queue refuses too, so the stream delivers the records again', async () => {
    bus.on(PutEventsCommand).resolves({ FailedEntryCount: 1, Entries: [{ ErrorCode: 'InternalFailure' }] });
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [{ Id: '0', Code: 'x', SenderFault: false }] });
    await expect(sink().deliver([event(1)])).rejects.toThrow(/dead-letter queue refused/);
  });
});
