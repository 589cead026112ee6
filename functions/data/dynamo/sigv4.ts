import { createHash, createHmac } from 'node:crypto';

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** When temporary credentials stop working; they are fetched again shortly before. */
  expiration?: Date;
}

export interface SignedRequest {
  method: string;
  host: string;
  path: string;
  /** Every header to sign, names in lower case; host, x-amz-date and the session token are added. */
  headers: Record<string, string>;
  body: string;
}

const sha256 = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** 20261121T032442Z and 20261121, the two forms of the time SigV4 signs. */
function timestamps(now: Date): { amzDate: string; day: string } {
  const amzDate = now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  return { amzDate, day: amzDate.slice(0, 8) };
}

const signingKeys = new Map<string, Buffer>();

/** The key changes once a day per secret, region and service; deriving it costs four HMACs. */
function signingKey(secret: string, day: string, region: string, service: string): Buffer {
  const id = `${secret}\u0000${day}\u0000${region}\u0000${service}`;
  let key = signingKeys.get(id);
  if (!key) {
    key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), service), 'aws4_request');
    signingKeys.clear();
    signingKeys.set(id, key);
  }
  return key;
}

/**
 * AWS Signature Version 4 for a request without a query string: the headers
 * to send, `authorization` included.
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html
 */
export function signRequest(request: SignedRequest, credentials: Credentials, region: string, service: string, now = new Date()): Record<string, string> {
  const { amzDate, day } = timestamps(now);
  const payloadHash = sha256(request.body);
  const headers: Record<string, string> = {
    ...request.headers,
    host: request.host,
    // Optional outside S3, but the AWS SDK sends it, and we sign what it signs.
    'x-amz-content-sha256': payloadHash,
    'x-amz-date': amzDate,
    ...(credentials.sessionToken ? { 'x-amz-security-token': credentials.sessionToken } : {}),
  };
  const names = Object.keys(headers).sort();
  const signedHeaders = names.join(';');
  const canonicalRequest = [
    request.method,
    request.path,
    '',
    ...names.map((name) => `${name}:${headers[name]!.trim().replace(/\s+/g, ' ')}`),
    '',
    signedHeaders,
    payloadHash,
  ].join('\n');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const signature = createHmac('sha256', signingKey(credentials.secretAccessKey, day, region, service)).update(stringToSign, 'utf8').digest('hex');
  return {
    ...headers,
    authorization: `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
  };
}
