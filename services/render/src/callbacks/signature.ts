/**
 * Remote-worker callback signatures: `X-Render-Signature: sha256=<hex>` where hex is
 * HMAC-SHA256(secret, `<timestamp>.<nonce>.<job id>.<raw body>`), `X-Render-Timestamp` is
 * Unix seconds and `X-Render-Nonce` is unique per report. The job id (dashed, lower
 * case) makes a captured report worthless on another job; the nonce, remembered for the
 * tolerance window, makes it worthless twice on the same job. A timestamp further than
 * the tolerance from now is stale and refused.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-render-signature';
export const TIMESTAMP_HEADER = 'x-render-timestamp';
export const NONCE_HEADER = 'x-render-nonce';

/** The callback's check as an OpenAPI security scheme (the route names it in `security`). */
export const CALLBACK_SECURITY_SCHEME = 'workerSignature';

export const callbackSecurityScheme = {
  type: 'apiKey',
  in: 'header',
  name: 'X-Render-Signature',
  description:
    'A remote worker signs each report with the shared CALLBACK_SECRET: `X-Render-Signature: sha256=<hex>`, ' +
    'hex being HMAC-SHA256(CALLBACK_SECRET, `<timestamp>.<nonce>.<job id>.<raw body>`), with ' +
    '`X-Render-Timestamp` (Unix seconds, at most 300 s from the service clock) and `X-Render-Nonce` ' +
    '(16-128 of A-Z a-z 0-9 _ -, used once). A missing, stale, wrong or replayed signature is a 401; ' +
    'without CALLBACK_SECRET the callback answers 403.',
} as const;

const NONCE_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;

export interface SignedFields {
  timestamp: number | string;
  nonce: string;
  jobId: string;
}

export function signCallback(secret: string, fields: SignedFields, body: Buffer | string): string {
  const hmac = createHmac('sha256', secret).update(
    `${fields.timestamp}.${fields.nonce}.${fields.jobId}.`,
  );
  return `sha256=${hmac.update(body).digest('hex')}`;
}

export type SignatureCheck = 'ok' | 'missing' | 'stale' | 'bad';

export function verifyCallback(
  secret: string,
  headers: {
    timestamp?: string | undefined;
    nonce?: string | undefined;
    signature?: string | undefined;
  },
  jobId: string,
  body: Buffer,
  toleranceSeconds: number,
  nowSeconds = Date.now() / 1000,
): SignatureCheck {
  const { timestamp, nonce, signature } = headers;
  if (!timestamp || !signature || !nonce) return 'missing';
  if (!/^\d{1,12}$/.test(timestamp) || !NONCE_PATTERN.test(nonce)) return 'bad';
  if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) return 'stale';
  const expected = Buffer.from(signCallback(secret, { timestamp, nonce, jobId }, body));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected) ? 'ok' : 'bad';
}
