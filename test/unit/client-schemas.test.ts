import { validate } from '#core/http/validation';
import { authSchema, registerSchema } from '../../functions/client/schemas';

const appId = '123e4567-e89b-42d3-a456-426614174000';

function messageOf(schema: typeof authSchema | typeof registerSchema, body: unknown): string | undefined {
  try {
    validate('client', schema, body);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('the /auth body', () => {
  it('reads a body that is not an object as an empty one', () => {
    for (const body of [null, [], 'text', 42]) expect(messageOf(authSchema, body)).toBe('App ID is required');
  });

  it('treats null and empty strings as missing', () => {
    expect(messageOf(authSchema, { app_id: null })).toBe('App ID is required');
    expect(messageOf(authSchema, { app_id: appId, license: '', username: 'u', password: null })).toBe(
      'No valid authentication method provided (missing license key or username/password)',
    );
  });

  it('prefers the license key when both methods are sent, and drops an empty HWID', () => {
    expect(validate('client', authSchema, { app_id: appId, license: 'K', username: 'u', password: 'p', hwid: '' })).toEqual({
      appId,
      credential: { license: 'K' },
      hwid: undefined,
      offlineToken: false,
    });
  });

  it('accepts username and password without a license', () => {
    expect(validate('client', authSchema, { app_id: appId, username: 'u', password: 'p', hwid: 'h' })).toEqual({
      appId,
      credential: { username: 'u', password: 'p' },
      hwid: 'h',
      offlineToken: false,
    });
  });
});

describe('the /register body', () => {
  it('asks for the fields in the documented order, then applies the length rules', () => {
    const steps: [Record<string, unknown>, string][] = [
      [{}, 'App ID is required'],
      [{ app_id: 'x' }, 'Invalid App ID format (must be a valid UUID)'],
      [{ app_id: appId }, 'License key is required'],
      [{ app_id: appId, license: 'K' }, 'Username is required'],
      [{ app_id: appId, license: 'K', username: 'ab' }, 'Password is required'],
      [{ app_id: appId, license: 'K', username: 'ab', password: 'short' }, 'Username must be 3 to 50 characters'],
      [{ app_id: appId, license: 'K', username: 'abc', password: 'short' }, 'Password must be at least 8 characters'],
    ];
    for (const [body, message] of steps) expect(messageOf(registerSchema, body)).toBe(message);
  });

  it('counts username characters, not UTF-16 units, and password bytes for the bcrypt limit', () => {
    expect(messageOf(registerSchema, { app_id: appId, license: 'K', username: '😀😀😀', password: 'password' })).toBeUndefined();
    expect(messageOf(registerSchema, { app_id: appId, license: 'K', username: 'abc', password: '€'.repeat(24) })).toBeUndefined();
    expect(messageOf(registerSchema, { app_id: appId, license: 'K', username: 'abc', password: '€'.repeat(25) })).toBe(
      'Password must be at most 72 bytes',
    );
  });
});
