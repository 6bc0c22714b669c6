/**
 * Remote-worker callback signatures: `X-Render-Signature: sha256=<hex>` where hex is
 * HMAC-SHA256(secret, `<timestamp>.<raw body>`) and `X-Render-Timestamp` is Unix seconds.
 * A timestamp further than the tolerance from now is stale and refused.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-render-signature';
export const TIMESTAMP_HEADER = 'x-render-timestamp';

export function signCallback(
  secret: string,
  timestamp: number | string,
  body: Buffer | string,
): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`;
}

export type SignatureCheck = 'ok' | 'missing' | 'stale' | 'bad';

export function verifyCallback(
  secret: string,
  timestamp: string | undefined,
  signature: string | undefined,
  body: Buffer,
  toleranceSeconds: number,
  nowSeconds = Date.now() / 1000,
): SignatureCheck {
  if (!timestamp || !signature) return 'missing';
  if (!/^\d{1,12}$/.test(timestamp)) return 'bad';
  if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) return 'stale';
  const expected = Buffer.from(signCallback(secret, timestamp, body));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected) ? 'ok' : 'bad';
}
