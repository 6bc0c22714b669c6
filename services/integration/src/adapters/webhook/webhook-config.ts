/** Attachment config of the `webhook` type: endpoint, authentication, timeouts (always set), batch body (optional). */
import { UnmappableDataError } from '../runtime/failures.js';

/** Bounds of one array body (batch mode): both hold, the first reached closes the body. */
export interface WebhookBatchConfig {
  maxRecords: number;
  maxBytes: number;
}

export const BATCH_DEFAULTS: WebhookBatchConfig = { maxRecords: 100, maxBytes: 1_048_576 };
const BATCH_LIMITS = { maxRecords: [1, 1000], maxBytes: [1024, 10_485_760] } as const;

export interface WebhookConfig {
  url: URL;
  authType: 'bearer' | 'hmac';
  token?: string;
  secret?: string;
  signatureHeader: string;
  connectTimeoutMs: number;
  readTimeoutMs: number;
  /** Set: each request carries a JSON array of envelopes (offset order) instead of one envelope. */
  batch?: WebhookBatchConfig;
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
    batch: {
      type: 'object',
      additionalProperties: false,
      description:
        'Batch body: when set, each request carries a JSON array of envelopes (in log order, so each key in order) instead of one envelope; a record retried on its own is an array of one. An empty object takes the defaults.',
      properties: {
        maxRecords: {
          type: 'integer',
          minimum: BATCH_LIMITS.maxRecords[0],
          maximum: BATCH_LIMITS.maxRecords[1],
          default: BATCH_DEFAULTS.maxRecords,
          description: 'Most envelopes in one request.',
        },
        maxBytes: {
          type: 'integer',
          minimum: BATCH_LIMITS.maxBytes[0],
          maximum: BATCH_LIMITS.maxBytes[1],
          default: BATCH_DEFAULTS.maxBytes,
          description:
            'Most bytes of one request body (a single envelope larger than this goes alone).',
        },
      },
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
    ...(config.batch !== undefined && config.batch !== null
      ? { batch: parseBatch(config.batch) }
      : {}),
  };
}

function parseBatch(value: unknown): WebhookBatchConfig {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UnmappableDataError('webhook config: batch must be an object');
  const batch = value as Record<string, unknown>;
  const bound = (name: keyof WebhookBatchConfig) => {
    const given = batch[name];
    if (given === undefined) return BATCH_DEFAULTS[name];
    const [min, max] = BATCH_LIMITS[name];
    if (typeof given !== 'number' || !Number.isInteger(given) || given < min || given > max)
      throw new UnmappableDataError(
        `webhook config: batch.${name} must be an integer from ${min} to ${max}`,
      );
    return given;
  };
  return { maxRecords: bound('maxRecords'), maxBytes: bound('maxBytes') };
}
