import { toStreamChange } from '../../functions/events/stream-record';

/**
 * Stream records as the Lambda runtime hands them over: JSON parsed, so a map
 * attribute keyed by an HWID or a counter name may hold `__proto__`,
 * `constructor` or `toString` as own keys. The reader keeps them as entries.
 */
const record = (newImage: string) =>
  JSON.parse(`{"eventID":"e-1","eventName":"MODIFY","dynamodb":{"ApproximateCreationDateTime":1780000000,"SequenceNumber":"100","Keys":{"pk":{"S":"LIC#K"},"sk":{"S":"LIC"}},"NewImage":${newImage}}}`);

describe('reading a stream record', () => {
  it('keeps map keys named like what every object inherits as entries of their own, __proto__ included', () => {
    const change = toStreamChange(
      record('{"leases":{"M":{"__proto__":{"N":"-1780000060000"},"constructor":{"N":"1780000060000"},"toString":{"M":{"inner":{"S":"x"}}},"plain":{"N":"1"}}}}'),
    );

    const leases = change.newImage!.leases as Record<string, unknown>;
    expect(Object.getPrototypeOf(leases)).toBe(Object.prototype);
    expect(Object.keys(leases)).toEqual(['__proto__', 'constructor', 'toString', 'plain']);
    expect(Object.getOwnPropertyDescriptor(leases, '__proto__')?.value).toBe(-1780000060000);
    expect(leases.constructor).toBe(1780000060000);
    expect(leases.toString).toEqual({ inner: 'x' });
    expect(({} as Record<string, unknown>).inner).toBeUndefined();
  });

  it('reads every kind of attribute as the SDK does, and an empty map the Streams API shows as {} as the empty map', () => {
    const change = toStreamChange(
      record('{"s":{"S":"x"},"n":{"N":"12.5"},"b":{"BOOL":false},"z":{"NULL":true},"l":{"L":[{"S":"a"},{"M":{}}]},"ss":{"SS":["a","b"]},"ns":{"NS":["1","2"]},"e":{}}'),
    );

    expect(change.newImage).toEqual({ s: 'x', n: 12.5, b: false, z: null, l: ['a', {}], ss: new Set(['a', 'b']), ns: new Set([1, 2]), e: {} });
    expect(change).toMatchObject({ eventId: 'e-1', sequenceNumber: '100', kind: 'MODIFY', at: 1780000000000, keys: { pk: 'LIC#K', sk: 'LIC' } });
  });

  it('refuses a record whose map entry has lost its value, rather than reading it without that entry', () => {
    const lost = record('{"leases":{"M":{"kept":{"N":"1"}}}}');
    Object.defineProperty(lost.dynamodb.NewImage.leases.M, '__proto__', { value: undefined, enumerable: true });

    expect(() => toStreamChange(lost)).toThrow('stream record e-1: attribute value without a type');
  });
});
