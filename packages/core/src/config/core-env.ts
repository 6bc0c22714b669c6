/**
 * The environment every service reads (design.md): where embedded engines keep their
 * files, and which real engines to use instead. Services extend this schema with their
 * own ports and limits.
 */
import { BlockList, isIP } from 'node:net';
import { z } from 'zod';
import { ROUTE_SCOPES, type RouteScope } from '../http/access/scopes.js';
import { booleanVar, listVar, urlVar } from './env-types.js';

/** A setting naming what a route needs: read, submit, operate or open. */
export const routeScopeVar = (defaultScope: RouteScope) =>
  z
    .enum(ROUTE_SCOPES as [RouteScope, ...RouteScope[]], {
      message: 'expected one of read, submit, operate, open',
    })
    .default(defaultScope);

const cidrList = listVar().refine(
  (items) =>
    items.every((item) => {
      const [address, bits] = item.split('/');
      if (!address || isIP(address) === 0) return false;
      if (bits === undefined) return true;
      const max = isIP(address) === 4 ? 32 : 128;
      return /^\d+$/.test(bits) && Number(bits) <= max;
    }),
  { message: 'expected a comma-separated list of IP addresses or CIDR ranges' },
);

export const coreEnvSchema = z.object({
  /** Everything an embedded default writes. @defaultValue `./data` */
  DATA_DIR: z.string().default('./data'),
  /** PostgreSQL; unset: PGlite under DATA_DIR. */
  DATABASE_URL: urlVar(['postgres', 'postgresql']).optional(),
  /**
   * PGlite on a worker thread of its own (its WebAssembly beside the main thread's work,
   * on a second core); off: on the main thread. Ignored with DATABASE_URL.
   */
  PGLITE_THREAD: booleanVar(false),
  /** Redis; unset: in-process counters and queue. */
  REDIS_URL: urlVar(['redis', 'rediss']).optional(),
  /** NATS JetStream; unset: broker log in the SQL database. */
  NATS_URL: urlVar(['nats', 'tls']).optional(),
  /** S3-compatible storage; unset: files under DATA_DIR. */
  S3_ENDPOINT: urlVar(['http', 'https']).optional(),
  S3_BUCKET: z.string().optional(),
  S3_REGION: z.string().default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_FORCE_PATH_STYLE: booleanVar(true),
  /** Address to listen on. @defaultValue `0.0.0.0` with API keys, `127.0.0.1` without (see `listenHost`) */
  HOST: z.string().optional(),
  /** API keys: `name:key` or `name:key:read+submit+operate`, comma-separated; unset: local mode. */
  API_KEYS: z.string().optional(),
  /** A file of API keys in the `API_KEYS` syntax (one per line, `#` comments); instead of API_KEYS. */
  API_KEYS_FILE: z.string().optional(),
  /** What `/metrics` needs: read, submit, operate or open. @defaultValue `operate` */
  METRICS_SCOPE: routeScopeVar('operate'),
  /** What `/docs` and `/openapi.json` need. @defaultValue `open` */
  DOCS_SCOPE: routeScopeVar('open'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      message: 'expected one of fatal, error, warn, info, debug, trace, silent',
    })
    .default('info'),
  /** Proxies whose `Edge-Connecting-IP` header is believed; unset: loopback peers only. */
  TRUSTED_PROXIES: cidrList.optional(),
  /**
   * Addresses and CIDR ranges the platform may request although they are loopback, private,
   * link-local or otherwise special (webhook targets, adapter admin URLs, the beatmap
   * mirror, the LLM). Unset: loopback only while no API_KEYS are set (local runs), nothing
   * with API keys. `none` allows nothing even locally.
   */
  ALLOWED_OUTBOUND: z.union([z.literal('none'), cidrList]).optional(),
  /** Secret for signed URLs of the filesystem store; unset: random per process start. */
  SIGNING_SECRET: z.string().min(16, { message: 'expected at least 16 characters' }).optional(),
  /** Absolute base URL clients reach this service at; used in signed URLs. */
  PUBLIC_BASE_URL: urlVar(['http', 'https']).optional(),
});

export type CoreEnv = z.output<typeof coreEnvSchema>;

/** The S3 variables are all-or-nothing: an endpoint without a bucket is a config error. */
export function s3Configured(env: CoreEnv): boolean {
  return env.S3_ENDPOINT !== undefined || env.S3_BUCKET !== undefined;
}

export function trustedProxyList(cidrs: string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address, bits] = cidr.split('/') as [string, string | undefined];
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return list;
}
