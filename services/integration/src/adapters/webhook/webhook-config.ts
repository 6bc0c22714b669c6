/** Attachment config of the `webhook` type: endpoint, authentication, timeouts (always set). */
import { UnmappableDataError } from '../runtime/failures.js';

export interface WebhookConfig {
  url: URL;
  authType: 'bearer' | 'hmac';
  token?: string;
  secret?: string;
  signatureHeader: string;
  connectTimeoutMs: number;
  readTimeoutMs: number;
}

export const WEBHOOK_CONFIG_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['url', 'authType'],
  properties: {
    url: {
      type: 'string',
      pattern: '^https?://[^\\s]+$',
      maxLength: 2000,
      description: 'Endpoint URL (http or https) the envelope is POSTed to.',
    },
    authType: {
      type: 'string',
      enum: ['bearer', 'hmac'],
      description:
        'Authentication: "bearer" sends Authorization: Bearer <token>; "hmac" signs the body with HMAC-SHA256 in the signature header.',
    },
    token: {
      type: 'string',
      minLength: 1,
      description: 'Bearer token (required when authType is "bearer").',
    },
    secret: {
      type: 'string',
      minLength: 16,
      description: 'HMAC secret, at least 16 characters (required when authType is "hmac").',
    },
    signatureHeader: {
      type: 'string',
      pattern: '^[A-Za-z0-9-]{1,64}$',
      default: 'X-Signature-256',
      description: 'Header carrying "sha256=<hex HMAC of the body>" when authType is "hmac".',
    },
    connectTimeoutMs: {
      type: 'integer',
      minimum: 100,
      maximum: 60000,
      default: 3000,
      description: 'Connect timeout in milliseconds.',
    },
    readTimeoutMs: {
      type: 'integer',
      minimum: 100,
      maximum: 120000,
      default: 10000,
      description:
        'Read timeout in milliseconds (no byte received for this long fails the attempt).',
    },
  },
  allOf: [
    { if: { properties: { authType: { const: 'bearer' } } }, then: { required: ['token'] } },
    { if: { properties: { authType: { const: 'hmac' } } }, then: { required: ['secret'] } },
  ],
} as const;

export function parseWebhookConfig(
  config: Record<string, unknown>,
  defaults: { connectTimeoutMs: number; readTimeoutMs: number },
): WebhookConfig {
  let url: URL;
  try {
    url = new URL(String(config.url));
  } catch {
    throw new UnmappableDataError(`webhook config: invalid url ${String(config.url)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UnmappableDataError('webhook config: url must be http or https');
  const authType = config.authType;
  if (authType === 'bearer' && typeof config.token !== 'string')
    throw new UnmappableDataError('webhook config: bearer needs a token');
  if (authType === 'hmac' && typeof config.secret !== 'string')
    throw new UnmappableDataError('webhook config: hmac needs a secret');
  if (authType !== 'bearer' && authType !== 'hmac')
    throw new UnmappableDataError('webhook config: authType must be bearer or hmac');
  const bounded = (value: unknown, fallback: number) =>
    typeof value === 'number' && Number.isFinite(value) && value > 0
      ? Math.min(value, 120_000)
      : fallback;
  return {
    url,
    authType,
    ...(typeof config.token === 'string' ? { token: config.token } : {}),
    ...(typeof config.secret === 'string' ? { secret: config.secret } : {}),
    signatureHeader:
      typeof config.signatureHeader === 'string' ? config.signatureHeader : 'X-Signature-256',
    connectTimeoutMs: bounded(config.connectTimeoutMs, defaults.connectTimeoutMs),
    readTimeoutMs: bounded(config.readTimeoutMs, defaults.readTimeoutMs),
  };
}
