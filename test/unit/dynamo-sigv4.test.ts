import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { signRequest, type Credentials } from '#data/dynamo/sigv4';

/**
 * No AWS account is reachable from the tests, so our SigV4 is held against the
 * AWS SDK's own signer (@smithy/signature-v4): same request, same time, same
 * credentials must give the same Authorization header, byte for byte.
 */
/** What the signer hands a hash: smithy's SourceData. */
type SourceData = string | ArrayBuffer | ArrayBufferView;

const bytes = (data: SourceData) => (typeof data === 'string' ? data : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data));

class NodeSha256 {
  private hash: Hash | Hmac;
  constructor(private readonly secret?: SourceData) {
    this.hash = this.fresh();
  }
  private fresh() {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(this.secret));
  }
  update(data: SourceData) {
    this.hash.update(bytes(data));
  }
  async digest() {
    return new Uint8Array(this.hash.digest());
  }
  reset() {
    this.hash = this.fresh();
  }
}

async function sdkAuthorization(body: string, headers: Record<string, string>, credentials: Credentials, region: string, host: string, date: Date) {
  const signer = new SignatureV4({ credentials, region, service: 'dynamodb', sha256: NodeSha256, uriEscapePath: true });
  const signed = await signer.sign(
    { method: 'POST', protocol: 'https:', hostname: host, path: '/', headers: { ...headers, host }, body, query: {} },
    { signingDate: date },
  );
  return signed.headers.authorization;
}

const dynamoHeaders = { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.GetItem' };
const at = new Date('2026-11-21T03:24:42.123Z');

describe('SigV4 signing', () => {
  it('signs a DynamoDB request exactly as the AWS SDK does, with a session token (Lambda credentials)', async () => {
    const credentials = { accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', sessionToken: 'IQoJb3JpZ2luX2VjEXAMPLE//token==' };
    const body = JSON.stringify({ TableName: 'licensing', Key: { pk: { S: 'LICENSE#ABC' }, sk: { S: 'LICENSE' } } });

    const ours = signRequest({ method: 'POST', host: 'dynamodb.eu-west-1.amazonaws.com', path: '/', headers: dynamoHeaders, body }, credentials, 'eu-west-1', 'dynamodb', at);

    expect(ours.authorization).toBe(await sdkAuthorization(body, dynamoHeaders, credentials, 'eu-west-1', 'dynamodb.eu-west-1.amazonaws.com', at));
    expect(ours['x-amz-security-token']).toBe(credentials.sessionToken);
    expect(ours['x-amz-date']).toBe('20261121T032442Z');
  });

  it('signs long-term keys (the admin CLI with a profile) and non-ASCII bodies as the AWS SDK does', async () => {
    const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret/with+chars' };
    const body = JSON.stringify({ TableName: 't', Item: { note: { S: 'Grüße, 世界 ✓' } } });
    const headers = { ...dynamoHeaders, 'x-amz-target': 'DynamoDB_20120810.PutItem' };

    const ours = signRequest({ method: 'POST', host: 'dynamodb.us-east-1.amazonaws.com', path: '/', headers, body }, credentials, 'us-east-1', 'dynamodb', at);

    expect(ours.authorization).toBe(await sdkAuthorization(body, headers, credentials, 'us-east-1', 'dynamodb.us-east-1.amazonaws.com', at));
    expect(ours).not.toHaveProperty('x-amz-security-token');
  });

  it('changes the signature with the day, so a cached signing key is never reused across days', async () => {
    const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };
    const request = { method: 'POST', host: 'h', path: '/', headers: dynamoHeaders, body: '{}' };
    const nextDay = new Date(at.getTime() + 86_400_000);

    const today = signRequest(request, credentials, 'us-east-1', 'dynamodb', at).authorization;
    const tomorrow = signRequest(request, credentials, 'us-east-1', 'dynamodb', nextDay).authorization;

    expect(tomorrow).not.toBe(today);
    expect(tomorrow).toBe(await sdkAuthorization('{}', dynamoHeaders, credentials, 'us-east-1', 'h', nextDay));
  });
});
