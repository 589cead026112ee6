import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { StreamChange } from './derive';

/** The fields of a stream record both the Lambda event and the Streams API carry (their types differ only in detail). */
export interface RawStreamRecord {
  eventID?: string;
  eventName?: string;
  dynamodb?: {
    /** Epoch seconds in a Lambda event; a Date from the Streams API. */
    ApproximateCreationDateTime?: number | Date;
    Keys?: Record<string, unknown>;
    NewImage?: Record<string, unknown>;
    OldImage?: Record<string, unknown>;
    SequenceNumber?: string;
  };
}

/**
 * The Streams API client reads an empty map attribute (`{"M": {}}`) back as
 * `{}`, which no attribute value is: it is put back before unmarshalling.
 */
function repaired(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const attribute = value as Record<string, unknown>;
  if (Object.keys(attribute).length === 0) return { M: {} };
  if (attribute.M) return { M: repairedMap(attribute.M as Record<string, unknown>) };
  if (Array.isArray(attribute.L)) return { L: attribute.L.map(repaired) };
  return attribute;
}

const repairedMap = (attributes: Record<string, unknown>) => Object.fromEntries(Object.entries(attributes).map(([name, value]) => [name, repaired(value)]));

const image = (attributes: Record<string, unknown> | undefined) =>
  attributes ? unmarshall(repairedMap(attributes) as Record<string, AttributeValue>) : undefined;

export function toStreamChange(record: RawStreamRecord): StreamChange {
  const stream = record.dynamodb ?? {};
  const created = stream.ApproximateCreationDateTime;
  const kind = record.eventName;
  if (kind !== 'INSERT' && kind !== 'MODIFY' && kind !== 'REMOVE') throw new Error(`unknown stream record kind ${String(kind)}`);
  return {
    eventId: record.eventID ?? '',
    sequenceNumber: stream.SequenceNumber ?? '',
    kind,
    at: created instanceof Date ? created.getTime() : (created ?? 0) * 1000,
    keys: image(stream.Keys) ?? {},
    oldImage: image(stream.OldImage),
    newImage: image(stream.NewImage),
  };
}
