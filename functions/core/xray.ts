import xray from 'aws-xray-sdk-core';

/**
 * The entry of the X-Ray chunk, a file of its own beside each Lambda bundle
 * (lib/bundling.ts): all that tracing.ts uses of the SDK.
 */
export const captureAWSv3Client = xray.captureAWSv3Client;
