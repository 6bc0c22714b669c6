/**
 * The access settings of one service process, built once from the environment.
 *
 * With keys (`API_KEYS` / `API_KEYS_FILE`), every route but `open` ones needs
 * `Authorization: Bearer <key>` with the route's scope, and the service listens on
 * `0.0.0.0` unless `HOST` says otherwise. Without keys (local runs), the service listens
 * on `127.0.0.1` unless `HOST` says otherwise, and `operate` routes answer only peers whose
 * socket address is loopback.
 */
import type { CoreEnv } from '../../config/core-env.js';
import { loadApiKeys, type ApiKey } from './api-keys.js';
import type { RouteScope } from './scopes.js';

export interface AccessPolicy {
  /** Accepted keys; empty: local mode (operator routes answer loopback peers only). */
  readonly keys: readonly ApiKey[];
  /** What `/metrics` needs. @defaultValue `operate` */
  readonly metricsScope: RouteScope;
  /** What `/docs` and `/openapi.json` need. @defaultValue `open` */
  readonly docsScope: RouteScope;
}

export const LOCAL_ACCESS: AccessPolicy = Object.freeze({
  keys: [],
  metricsScope: 'operate',
  docsScope: 'open',
});

export type AccessEnv = Pick<
  CoreEnv,
  'API_KEYS' | 'API_KEYS_FILE' | 'METRICS_SCOPE' | 'DOCS_SCOPE'
>;

/** Reads the keys (and the key file) once; throws `ConfigError` for a bad entry. */
export function accessPolicyFromEnv(
  env: AccessEnv,
  readFile?: (path: string) => string,
): AccessPolicy {
  return Object.freeze({
    keys: Object.freeze(loadApiKeys(env, readFile)),
    metricsScope: env.METRICS_SCOPE,
    docsScope: env.DOCS_SCOPE,
  });
}

/** `HOST`, else `0.0.0.0` with keys and `127.0.0.1` without. */
export function listenHost(env: Pick<CoreEnv, 'HOST' | 'API_KEYS' | 'API_KEYS_FILE'>): string {
  if (env.HOST !== undefined) return env.HOST;
  return env.API_KEYS !== undefined || env.API_KEYS_FILE !== undefined ? '0.0.0.0' : '127.0.0.1';
}
