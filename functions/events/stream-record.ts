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
 * An attribute value as native data. Maps are built from their entries, so a
 * key a client or an owner chose stays an entry of its own whatever its name:
 * the SDK's `unmarshall` assigns keys one by one, and assigning `__proto__`
 * replaces the map's prototype instead (docs/security.md#keys-chosen-by-clients-and-owners).
 * Everything else is the SDK's. The Streams API client reads an empty map
 * attribute (`{"M": {}}`) back as `{}`, which no attribute value is: it is
 * the empty map. A value that is no attribute at all makes the record unreadable.
 */
function nativeOf(value: unknown, eventId: string | undefined): unknown {
  if (typeof value !== 'object' || value === null) throw new Error(`stream record ${String(eventId)}: attribute value without a type`);
  const attribute = value as Record<string, unknown>;
  if (Object.keys(attribute).length === 0) return {};
  if (typeof attribute.M === 'object' && attribute.M !== null) return nativeMap(attribute.M as Record<string, unknown>, eventId);
  if (Array.isArray(attribute.L)) return attribute.L.map((item) => nativeOf(item, eventId));
  return unmarshall(value as AttributeValue, { convertWithoutMapWrapper: true });
}

const nativeMap = (attributes: Record<string, unknown>, eventId: string | undefined): Record<string, unknown> =>
  Object.fromEntries(Object.entries(attributes).map(([name, value]) => [name, nativeOf(value, eventId)]));

const image = (attributes: Record<string, unknown> | undefined, eventId: string | undefined) => (attributes ? nativeMap(attributes, eventId) : undefined);

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
    keys: image(stream.Keys, record.eventID) ?? {},
    oldImage: image(stream.OldImage, record.eventID),
    newImage: image(stream.NewImage, record.eventID),
  };
}
