import { createSignInCodes } from '../../local/sign-in';

describe('one-time sign-in codes of the local server', () => {
  it('gives the key for a code once, then refuses the same code', () => {
    const codes = createSignInCodes();
    const code = codes.mint('the-key');

    expect(code).not.toContain('the-key');
    expect(codes.redeem(code)).toBe('the-key');
    expect(codes.redeem(code)).toBeUndefined();
  });

  it('refuses a code after its lifetime, and a code it never made', () => {
    let now = 1_000;
    const codes = createSignInCodes({ lifetimeMs: 60_000, now: () => now });
    const late = codes.mint('the-key');
    const onTime = codes.mint('the-key');

    now += 59_999;
    expect(codes.redeem(onTime)).toBe('the-key');
    now += 1;
    expect(codes.redeem(late)).toBeUndefined();
    expect(codes.redeem('made-up')).toBeUndefined();
  });

  it('makes codes no one can guess from another', () => {
    const codes = createSignInCodes();
    const made = new Set(Array.from({ length: 100 }, () => codes.mint('the-key')));

    expect(made.size).toBe(100);
    for (const code of made) expect(code).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });
});
