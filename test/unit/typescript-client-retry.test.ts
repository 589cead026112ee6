import { createLicensingClient, LicensingApiError, retryAfterMs, retryingFetch, unwrap } from '../../clients/typescript/src/index';

/** A fetch that answers from a script, recording each request's body as it arrived. */
function scriptedFetch(script: (Response | Error | DOMException)[]) {
  const bodies: string[] = [];
  const fetchOnce = async (request: Request) => {
    bodies.push(await request.text());
    const next = script.shift();
    if (next === undefined) throw new Error('more requests than scripted');
    if (!(next instanceof Response)) throw next;
    return next;
  };
  return { fetchOnce, bodies };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

const request = () => new Request('http://api.test/license/get', { method: 'POST', body: '{"license_key":"K"}', headers: { 'content-type': 'application/json' } });

function recordingSleep() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

describe('Retry-After', () => {
  it('reads delay-seconds and HTTP-dates, and nothing else', () => {
    const now = Date.parse('2026-03-01T12:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs('Sun, 01 Mar 2026 12:00:07 GMT', now)).toBe(7000);
    expect(retryAfterMs('Sun, 01 Mar 2026 11:59:00 GMT', now)).toBe(0);
    expect(retryAfterMs(null, now)).toBeUndefined();
    expect(retryAfterMs('soon', now)).toBeUndefined();
  });
});

describe('the retrying fetch', () => {
  it('waits the documented 1 s, 4 s, 10 s on 429 and 5xx without Retry-After, re-sending the same body, then gives the last answer', async () => {
    const { fetchOnce, bodies } = scriptedFetch([json(429, {}), json(500, {}), json(503, {}), json(502, { error: 'last' })]);
    const { waits, sleep } = recordingSleep();
    const response = await retryingFetch(fetchOnce, { sleep })(request());
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({ error: 'last' });
    expect(waits).toEqual([1000, 4000, 10_000]);
    expect(bodies).toEqual(Array(4).fill('{"license_key":"K"}'));
  });

  it('honours Retry-After, capped by maxWaitMs', async () => {
    const { fetchOnce } = scriptedFetch([json(429, {}, { 'retry-after': '2' }), json(429, {}, { 'retry-after': '120' }), json(200, { success: true })]);
    const { waits, sleep } = recordingSleep();
    const response = await retryingFetch(fetchOnce, { sleep, maxWaitMs: 30_000 })(request());
    expect(response.status).toBe(200);
    expect(waits).toEqual([2000, 30_000]);
  });

  it('retries network errors, and throws the last one once the retries are spent', async () => {
    const { fetchOnce } = scriptedFetch([new TypeError('fetch failed'), json(200, { success: true })]);
    const { waits, sleep } = recordingSleep();
    expect((await retryingFetch(fetchOnce, { sleep })(request())).status).toBe(200);
    expect(waits).toEqual([1000]);

    const failing = scriptedFetch([new TypeError('one'), new TypeError('two'), new TypeError('three')]);
    await expect(retryingFetch(failing.fetchOnce, { sleep, delays: [5, 5] })(request())).rejects.toThrow('three');
  });

  it('does not retry other answers, nor a request its caller aborted', async () => {
    const { waits, sleep } = recordingSleep();
    for (const status of [200, 400, 401, 403, 404, 409, 413]) {
      const { fetchOnce, bodies } = scriptedFetch([json(status, {})]);
      expect((await retryingFetch(fetchOnce, { sleep })(request())).status).toBe(status);
      expect(bodies).toHaveLength(1);
    }
    const controller = new AbortController();
    controller.abort();
    const aborted = new Request(request(), { signal: controller.signal });
    const { fetchOnce, bodies } = scriptedFetch([new DOMException('aborted', 'AbortError')]);
    await expect(retryingFetch(fetchOnce, { sleep })(aborted)).rejects.toThrow('aborted');
    expect(bodies).toHaveLength(1);
    expect(waits).toEqual([]);
  });
});

describe('createLicensingClient', () => {
  it('sends the API key and a JSON body to the base URL, and retries through its fetch', async () => {
    const seen: { url: string; key: string | null; body: string }[] = [];
    const answers = [json(503, {}), json(200, { success: true, data: { key: 'K' } })];
    const { waits, sleep } = recordingSleep();
    const client = createLicensingClient({
      baseUrl: 'http://api.test/prod/',
      apiKey: 'secret',
      retry: { sleep },
      fetch: async (sent) => {
        seen.push({ url: sent.url, key: sent.headers.get('x-api-key'), body: await sent.text() });
        return answers.shift()!;
      },
    });
    const { data } = await unwrap(client.POST('/license/delete', { body: { license_key: 'K' } }));
    expect(data).toEqual({ key: 'K' });
    expect(seen).toEqual(Array(2).fill({ url: 'http://api.test/prod/license/delete', key: 'secret', body: '{"license_key":"K"}' }));
    expect(waits).toEqual([1000]);
  });

  it('sends once with retry: false', async () => {
    const { fetchOnce, bodies } = scriptedFetch([json(503, { error: 'busy', error_code: 'SERVER_ERROR' })]);
    const client = createLicensingClient({ baseUrl: 'http://api.test', retry: false, fetch: fetchOnce });
    const error = await unwrap(client.POST('/app/list', { body: {} })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LicensingApiError);
    expect(error).toMatchObject({ status: 503, errorCode: 'SERVER_ERROR', message: 'busy' });
    expect(bodies).toHaveLength(1);
  });
});

describe('LicensingApiError', () => {
  it('carries the management code, the client message, or the status alone', () => {
    expect(new LicensingApiError(404, { error: 'License not found', error_code: 'LICENSE_NOT_FOUND' })).toMatchObject({ status: 404, errorCode: 'LICENSE_NOT_FOUND', message: 'License not found' });
    expect(new LicensingApiError(403, { success: false, message: 'License not found' })).toMatchObject({ status: 403, errorCode: undefined, message: 'License not found' });
    expect(new LicensingApiError(502, 'Bad Gateway')).toMatchObject({ status: 502, errorCode: undefined, message: 'HTTP 502', body: 'Bad Gateway' });
  });
});
