/**
 * Enforces the access policy on a Fastify app: every route gets an effective scope when
 * it is registered (its `config.scope`, `operate` when undeclared; `/health` open;
 * `/metrics`, `/docs`, `/openapi.json` from the policy), and every request is checked in
 * `onRequest`, before its body is read.
 *
 * With keys: no or malformed `Authorization: Bearer` → 401, unknown key → 401, key without
 * the scope → 403; all `{"detail": ...}`, counted in `api_key_requests_total` by key name.
 * Keys are compared through their SHA-256 digests with `timingSafeEqual`, against every
 * key, so timing tells nothing about a key or which one matched.
 * Without keys: `operate` routes answer only loopback socket peers (never a header); 403.
 */
import { coreErrors, replyWithError } from '../../errors/core-errors.js';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { Counter, type Registry } from 'prom-client';
import type { AccessPolicy } from './access-policy.js';
import type { ApiKey } from './api-keys.js';
import { isLoopbackAddress } from './loopback.js';
import { securitySchemeName } from '../openapi/security-schemes.js';
import {
  DEFAULT_ROUTE_SCOPE,
  isRouteScope,
  KEY_SCOPES,
  type KeyScope,
  type RouteScope,
} from './scopes.js';

const ALL_SCOPES: ReadonlySet<KeyScope> = new Set(KEY_SCOPES);
const REMOTE_LOCAL_SCOPES: ReadonlySet<KeyScope> = new Set(['read', 'submit']);

/**
 * Whether the caller of an accepted request holds `scope` beyond what its route needed
 * (a route open to submitters that does more for operators). On `open` routes the caller
 * holds a scope only when it presented a valid key holding it (or, without keys, is a
 * loopback peer for `operate`).
 */
export function callerHasScope(request: FastifyRequest, scope: KeyScope): boolean {
  return request.callerScopes?.has(scope) ?? false;
}

export const ACCESS_DETAILS = {
  missing: coreErrors.definitions.API_KEY_MISSING.detail,
  invalid: coreErrors.definitions.API_KEY_INVALID.detail,
  localOnly: coreErrors.definitions.LOCAL_ONLY.detail,
  lacksScope: (name: string, scope: string) =>
    `The API key "${name}" does not have the "${scope}" scope.`,
} as const;

/** The scope a route ends up with (exported for the fuzz suite and tests). */
export function effectiveScope(url: string, declared: unknown, policy: AccessPolicy): RouteScope {
  if (url === '/health') return 'open';
  if (url === '/metrics') return policy.metricsScope;
  if (url === '/openapi.json' || url === '/docs' || url.startsWith('/docs/'))
    return policy.docsScope;
  if (declared === undefined) return DEFAULT_ROUTE_SCOPE;
  if (!isRouteScope(declared))
    throw new Error(
      `route ${url}: config.scope must be read, submit, operate or open (got ${String(declared)})`,
    );
  return declared;
}

/** One route and what it needs; `app.routeAccess` lists every route (tests, fuzz suite). */
export interface RouteAccess {
  readonly method: string;
  readonly url: string;
  readonly scope: RouteScope;
}

interface HashedKey {
  key: ApiKey;
  digest: Buffer;
}

const digestOf = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** Finds the key for `presented`, comparing against every key in constant time. */
function matchKey(keys: readonly HashedKey[], presented: string): ApiKey | undefined {
  const digest = digestOf(presented);
  let found: ApiKey | undefined;
  for (const candidate of keys) {
    if (timingSafeEqual(candidate.digest, digest) && !found) found = candidate.key;
  }
  return found;
}

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer[ \t]+([\x21-\x7e]+)[ \t]*$/i.exec(header);
  return match?.[1];
}

/**
 * On an `open` route the caller is identified when it can be, so a route open to everyone
 * can do more for an operator (`callerHasScope`): a valid key gives its scopes, in local
 * mode a loopback peer holds every scope. A missing or unknown key is simply anonymous.
 */
function identifyOptionalCaller(request: FastifyRequest, keys: readonly HashedKey[]): void {
  if (keys.length === 0) {
    request.callerScopes = isLoopbackAddress(request.raw.socket.remoteAddress)
      ? ALL_SCOPES
      : REMOTE_LOCAL_SCOPES;
    return;
  }
  const token = bearerToken(request);
  const key = token === undefined ? undefined : matchKey(keys, token);
  if (key) {
    request.apiKeyName = key.name;
    request.callerScopes = key.scopes;
  }
}

export function installAccessControl(
  app: FastifyInstance,
  policy: AccessPolicy,
  metrics: Registry,
): void {
  const hashed = policy.keys.map((key) => ({ key, digest: digestOf(key.key) }));
  const requests = new Counter({
    name: 'api_key_requests_total',
    help: 'Requests to key-protected routes by key name (none: no key, invalid: unknown key) and outcome.',
    labelNames: ['key', 'outcome'],
    registers: [metrics],
  });

  const table: RouteAccess[] = [];
  app.decorate('routeAccess', table);
  app.addHook('onRoute', (route: RouteOptions) => {
    const scope = effectiveScope(route.url, route.config?.scope, policy);
    route.config = { ...route.config, scope };
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD') table.push({ method, url: route.url, scope });
    }
    const schema = route.schema as { hide?: boolean; security?: unknown } | undefined;
    if (!schema?.hide) {
      // Open routes say so (`security: []`): the document states every operation's needs.
      // An open route may name a check of its own instead (render's signed worker
      // callback); a keyed route's requirement always comes from its scope.
      route.schema = {
        ...route.schema,
        ...(scope === 'open'
          ? { security: schema?.security ?? [] }
          : { security: [{ [securitySchemeName(scope)]: [] }], 'x-scope': scope }),
      } as RouteOptions['schema'];
    }
  });

  app.decorateRequest('apiKeyName', undefined);
  app.decorateRequest('callerScopes', undefined);
  /** Checks a request's key against its route's scope; answers it (and returns the reply) when refused. */
  const refused = (request: FastifyRequest, reply: FastifyReply): FastifyReply | undefined => {
    const scope = request.routeOptions.config.scope;
    // Unmatched requests (404) carry no scope; they reach only the not-found handler.
    if (scope === undefined) return;
    if (scope === 'open') {
      identifyOptionalCaller(request, hashed);
      return;
    }
    if (hashed.length === 0) {
      const local = isLoopbackAddress(request.raw.socket.remoteAddress);
      if (scope === 'operate' && !local) {
        return replyWithError(reply, coreErrors.LOCAL_ONLY());
      }
      request.callerScopes = local ? ALL_SCOPES : REMOTE_LOCAL_SCOPES;
      return;
    }
    const token = bearerToken(request);
    const key = token === undefined ? undefined : matchKey(hashed, token);
    if (!key) {
      requests.labels(token === undefined ? 'none' : 'invalid', 'unauthenticated').inc();
      const headers = { 'www-authenticate': 'Bearer' };
      return replyWithError(
        reply,
        token === undefined
          ? coreErrors.API_KEY_MISSING({ headers })
          : coreErrors.API_KEY_INVALID({ headers }),
      );
    }
    request.apiKeyName = key.name;
    request.callerScopes = key.scopes;
    if (!key.scopes.has(scope)) {
      requests.labels(key.name, 'forbidden').inc();
      return replyWithError(
        reply,
        coreErrors.SCOPE_MISSING({ detail: ACCESS_DETAILS.lacksScope(key.name, scope) }),
      );
    }
    requests.labels(key.name, 'accepted').inc();
    return undefined;
  };
  // Callback-style: nothing here awaits, and every request runs it (issue 11).
  app.addHook('onRequest', (request, reply, done) => {
    if (!refused(request, reply)) done();
  });
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered so far with the scope it ended up with. */
    routeAccess: readonly RouteAccess[];
  }
  interface FastifyRequest {
    /** Name of the API key the request presented, once accepted (never the key). */
    apiKeyName: string | undefined;
    /** What the caller may do: its key's scopes, or in local mode every scope for loopback peers and read + submit for others. */
    callerScopes: ReadonlySet<KeyScope> | undefined;
  }
}
