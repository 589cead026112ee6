import { mapConcurrently, runBulk } from '#core/domain/bulk';
import { ManagementError } from '#core/http/errors';
import { createLogger } from '#core/logger';

const quietLogger = (lines: string[] = []) => createLogger('error', {}, (line) => lines.push(line));

describe('the bulk runner', () => {
  it('answers each distinct key once, in request order, with ManagementError codes as error_code', async () => {
    const seen: string[] = [];
    const result = await runBulk(
      ['a', 'b', 'a', 'c'],
      async (key) => {
        seen.push(key);
        if (key === 'b') throw new ManagementError('LICENSE_NOT_FOUND');
      },
      { logger: quietLogger() },
    );

    expect(seen.sort()).toEqual(['a', 'b', 'c']);
    expect(result).toEqual({ succeeded: ['a', 'c'], failed: [{ license_key: 'b', error_code: 'LICENSE_NOT_FOUND' }] });
  });

  it('turns an unexpected fault into SERVER_ERROR for that key alone and logs it', async () => {
    const lines: string[] = [];
    const result = await runBulk(
      ['ok', 'boom'],
      async (key) => {
        if (key === 'boom') throw new Error('socket hang up');
      },
      { logger: quietLogger(lines) },
    );

    expect(result).toEqual({ succeeded: ['ok'], failed: [{ license_key: 'boom', error_code: 'SERVER_ERROR' }] });
    expect(lines.join('\n')).toContain('socket hang up');
    expect(lines.join('\n')).not.toContain('boom');
  });

  it('starts no key after workUntil but the first, answering the others SERVICE_UNAVAILABLE, so sending them again always gets on', async () => {
    const started: string[] = [];
    const result = await runBulk(['a', 'b', 'c'], async (key) => void started.push(key), { logger: quietLogger(), concurrency: 1, workUntil: Date.now() - 1 });

    expect(started).toEqual(['a']);
    expect(result).toEqual({
      succeeded: ['a'],
      failed: [
        { license_key: 'b', error_code: 'SERVICE_UNAVAILABLE' },
        { license_key: 'c', error_code: 'SERVICE_UNAVAILABLE' },
      ],
    });
  });

  it('waits for the work in flight when workUntil passes', async () => {
    const workUntil = Date.now() + 50;
    const result = await runBulk(
      ['slow', 'late'],
      async (key) => {
        if (key === 'slow') await new Promise((done) => setTimeout(done, 100));
      },
      { logger: quietLogger(), concurrency: 1, workUntil },
    );

    expect(result).toEqual({ succeeded: ['slow'], failed: [{ license_key: 'late', error_code: 'SERVICE_UNAVAILABLE' }] });
  });

  it('never has more than the given number of calls in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    const results = await mapConcurrently(Array.from({ length: 50 }, (_, i) => i), 4, async (item) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((done) => setTimeout(done, 1));
      inFlight--;
      return item * 2;
    });

    expect(peak).toBe(4);
    expect(results).toEqual(Array.from({ length: 50 }, (_, i) => i * 2));
  });
});
