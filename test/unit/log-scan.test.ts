import { createLogger } from '#core/logger';
import { findLeaks, type SecretValue } from '../support/log-evidence';

const line = (fields: Record<string, unknown>) => ({ file: 'test/unit/example.test.ts', line: JSON.stringify({ level: 'debug', message: 'event', ...fields }) });

describe('the log scan', () => {
  const secrets: SecretValue[] = [
    { kind: 'username', value: 'scan-user' },
    { kind: 'hwid', value: 'hw"quoted' },
    { kind: 'hwid', value: 'd1' },
    { kind: 'email', value: 'ann.buyer@example.com' },
  ];

  it('names the line and the kind of a recorded secret it finds', () => {
    const leaking = line({ event: { after: { username: 'scan-user' } } });
    expect(findLeaks([leaking, line({ type: 'license.created' })], secrets)).toEqual([{ ...leaking, kind: 'username' }]);
  });

  it('finds a customer email wherever a line quotes it, in an item key as well', () => {
    expect(findLeaks([line({ error_message: 'no item APP#1#EMAIL#ann.buyer@example.com' })], secrets).map((leak) => leak.kind)).toEqual(['email']);
  });

  it('finds a secret as JSON escapes it', () => {
    expect(findLeaks([line({ value: 'hw"quoted' })], secrets).map((leak) => leak.kind)).toEqual(['hwid']);
  });

  it('finds a secret only as a whole, not inside a longer word', () => {
    const hwid: SecretValue[] = [{ kind: 'hwid', value: 'reset-a' }];
    expect(findLeaks([line({ path: '/hwid/toggle-reset-allowed' })], hwid)).toEqual([]);
    expect(findLeaks([line({ error_message: 'no item APP#1#HWID#reset-a' })], hwid).map((leak) => leak.kind)).toEqual(['hwid']);
  });

  it('ignores values too short to tell from ids and words', () => {
    expect(findLeaks([line({ request_id: 'd1-d1' })], secrets)).toEqual([]);
  });

  it.each([
    ['bcrypt hash', { value: `$2b$04$${'a'.repeat(53)}` }],
    ['PEM private key', { value: '-----BEGIN PRIVATE KEY-----\nMC4CAQAw' }],
    ['JWK private key (d)', { jwk: JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: 'x'.repeat(43), d: 'n'.repeat(43) }) }],
    ['license-key-shaped string', { error_message: 'no item LIC#Q7M2K-8XRTA-0PZ4N-V3WYB-6HCDE' }],
    ['Stripe signing secret or restricted key', { error_message: 'secret whsec_Jx2kQ9vN4mP7rT1sW8yZ3bC6' }],
    ['Stripe signing secret or restricted key', { authorization: 'Bearer rk_live_51Hx2kQ9vN4mP7rT1sW8yZ' }],
  ])('finds a %s by its shape alone', (kind, fields) => {
    expect(findLeaks([line(fields)], []).map((leak) => leak.kind)).toEqual([kind]);
  });

  it('passes a line that carries a fingerprint', () => {
    expect(findLeaks([line({ subject: 'license:3f9c2a1b' })], secrets)).toEqual([]);
  });
});

describe('the logger', () => {
  it('drops secret fields at every level and depth, whatever the caller passed', () => {
    const lines: string[] = [];
    const logger = createLogger('debug', {}, (logged) => lines.push(logged));

    logger.debug('event', { event: { after: { key: 'Q7M2K-8XRTA-0PZ4N-V3WYB-6HCDE', username: 'scan-user', hwids: ['hwid-1'], password_hash: '$2b$04$x', email: 'ann.buyer@example.com' } }, type: 'license.created' });
    logger.error('failed', { license_key: 'Q7M2K-8XRTA-0PZ4N-V3WYB-6HCDE', signing_key: { private_key_ciphertext: 'c2VjcmV0' } });
    logger.info('checkout', { session: { customer_email: 'ann.buyer@example.com' }, email_fingerprint: '3f9c2a1b' });

    expect(lines.map((logged) => JSON.parse(logged))).toEqual([
      expect.objectContaining({ event: { after: { key: '[redacted]', username: '[redacted]', hwids: '[redacted]', password_hash: '[redacted]', email: '[redacted]' } }, type: 'license.created' }),
      expect.objectContaining({ license_key: '[redacted]', signing_key: { private_key_ciphertext: '[redacted]' } }),
      // A fingerprint names no one: a line may carry it to correlate by.
      expect.objectContaining({ session: { customer_email: '[redacted]' }, email_fingerprint: '3f9c2a1b' }),
    ]);
  });
});
