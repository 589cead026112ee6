import { blacklist } from '../support/client';
import { startTestServer, type TestServer } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { createOwner } from '../support/owners';

const forged = { 'CloudFront-Viewer-Country': 'KP', 'CloudFront-Viewer-ASN': 'AS64500' };

async function listedLicense(env: TestServer) {
  const owner = await createOwner(env.deps);
  await blacklist(env, owner.app_id, 'country', 'KP');
  await blacklist(env, owner.app_id, 'asn', '64500');
  const { key } = await seedLicense(env.deps, await seedSubscription(env.deps, owner));
  return { app_id: owner.app_id, license: key };
}

describe('/auth without CloudFront in front (the default: no viewer header trusted)', () => {
  let env: TestServer;
  beforeAll(async () => {
    env = await startTestServer();
  });
  afterAll(() => env.close());

  it('ignores CloudFront-Viewer-Country and -ASN a client sends itself', async () => {
    expect(env.config.trustedViewerHeaders).toEqual([]);
    const response = await env.post('/auth', await listedLicense(env), forged);
    expect(response.status).toBe(200);
    expect(response.body.success).toBe(true);
  });
});

describe('/auth behind API Gateway\'s edge distribution (country trusted, ASN not set by it)', () => {
  let env: TestServer;
  beforeAll(async () => {
    env = await startTestServer({ config: { trustedViewerHeaders: ['country'] } });
  });
  afterAll(() => env.close());

  it('checks the country and ignores an ASN header', async () => {
    const body = await listedLicense(env);
    expect((await env.post('/auth', body, forged)).body).toEqual({ success: false, message: 'COUNTRY_BLACKLISTED' });
    const asnOnly = await env.post('/auth', body, { 'CloudFront-Viewer-ASN': 'AS64500' });
    expect(asnOnly.body.success).toBe(true);
  });
});
