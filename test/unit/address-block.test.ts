import { addressBlock } from '#core/http/network';

/** Where a trial start (`per_ip_per_day`, docs/client-api.md#post-trial) or a portal sign-in counts against its address limit: one spelling per address, an IPv6 address by its /64. */
describe('the address block a per-address limit counts', () => {
  it('is an IPv4 address itself, an IPv4-mapped IPv6 address as IPv4', () => {
    expect(addressBlock('192.0.2.7')).toBe('192.0.2.7');
    expect(addressBlock('::ffff:192.0.2.7')).toBe('192.0.2.7');
  });

  it('is the /64 of an IPv6 address, however it is spelled', () => {
    const spellings = ['2001:db8:aa:bb:1:2:3:4', '2001:0DB8:00aa:00bb:ffff::1', '2001:db8:aa:bb::', '2001:db8:aa:bb::9%eth0'];
    expect(spellings.map(addressBlock)).toEqual(Array(4).fill('2001:db8:aa:bb::/64'));
    expect(addressBlock('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressBlock('::1')).toBe('0:0:0:0::/64');
    expect(addressBlock('2001:db8:aa:bc::1')).not.toBe(addressBlock('2001:db8:aa:bb::1'));
  });

  it('is one bucket for a request whose address the gateway did not give', () => {
    expect(addressBlock('')).toBe('');
    expect(addressBlock('not an address')).toBe('');
  });
});
