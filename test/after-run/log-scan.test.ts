import { readEvidence } from '../support/evidence';
import { findLeaks, logLinesEvidence, secretsEvidence, shortestCheckedSecret, type LoggedLine, type SecretValue } from '../support/log-evidence';

/**
 * No log line of the whole run, at any level (the tests log at debug), names a
 * license key, username, HWID, customer email, password, API key, bcrypt hash, private key,
 * portal sign-in code or session token:
 * every line a test's logger wrote is checked against every such value the
 * tests sent or the table held, and against the shapes of keys and hashes.
 */
describe('the log lines of the whole run', () => {
  const lines = readEvidence<LoggedLine>(logLinesEvidence);
  const secrets = readEvidence<SecretValue>(secretsEvidence);

  it('were recorded at debug level, with the secrets of every kind the tests used', () => {
    const levels = new Set(lines.map((entry) => JSON.parse(entry.line).level));
    const kinds = new Set(secrets.filter((secret) => secret.value.length >= shortestCheckedSecret).map((secret) => secret.kind));
    console.info(
      `log scan: ${lines.length} lines from ${new Set(lines.map((entry) => entry.file)).size} test files, ` +
        `${new Set(secrets.map((secret) => secret.value)).size} distinct secret values ` +
        `(${secrets.filter((secret) => secret.value.length >= shortestCheckedSecret).length} checked, the rest shorter than ${shortestCheckedSecret} characters)`,
    );
    expect(levels).toContain('debug');
    expect([...kinds].sort()).toEqual(['api key', 'bcrypt hash', 'email', 'hwid', 'license key', 'password', 'portal code', 'portal token', 'private key', 'stripe secret', 'username']);
  });

  it('name no secret and carry no secret-shaped string', () => {
    const leaks = findLeaks(lines, secrets).map((leak) => `${leak.kind} in a line of ${leak.file}: ${leak.line}`);
    expect(leaks).toEqual([]);
  });
});
