/**
 * Checks a service's routes against its access table (issue 15): every route is listed
 * with the scope it needs (so a new route must be classified), and each one is called
 * without a key (401), with a key lacking the scope (403) and with the right key (past
 * access control), or in local mode from a remote and a loopback peer.
 */
import assert from 'node:assert/strict';
import {
  ACCESS_DETAILS,
  accessPolicyFromEnv,
  KEY_SCOPES,
  type AccessPolicy,
  type KeyScope,
  type RouteScope,
} from '@platform/core';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

/** One key per scope, and `admin` holding every scope, for apps built with `testAccessPolicy()`. */
export const TEST_KEYS: Readonly<Record<KeyScope | 'admin', string>> = {
  read: 'test-reader-key-0123456789',
  submit: 'test-submitter-key-0123456789',
  operate: 'test-operator-key-0123456789',
  admin: 'test-admin-key-0123456789',
};

const KEY_NAMES: Readonly<Record<KeyScope, string>> = {
  read: 'reader',
  submit: 'submitter',
  operate: 'operator',
};

export const TEST_API_KEYS = [
  ...KEY_SCOPES.map((scope) => `${KEY_NAMES[scope]}:${TEST_KEYS[scope]}:${scope}`),
  `admin:${TEST_KEYS.admin}`,
].join(',');

/** A policy with the keys of `TEST_KEYS`. */
export function testAccessPolicy(
  overrides: Partial<Pick<AccessPolicy, 'metricsScope' | 'docsScope'>> = {},
): AccessPolicy {
  return {
    ...accessPolicyFromEnv({
      API_KEYS: TEST_API_KEYS,
      API_KEYS_FILE: undefined,
      METRICS_SCOPE: 'operate',
      DOCS_SCOPE: 'open',
    }),
    ...overrides,
  };
}

export const bearer = (scope: KeyScope | 'admin') => ({
  authorization: `Bearer ${TEST_KEYS[scope]}`,
});

/** `METHOD /url` → scope; the swagger-ui assets under `/docs/` are left out. */
export type AccessTable = Record<string, RouteScope>;

/** The table an app ended up with (for comparing with the service's declared one). */
export function routeTable(app: FastifyInstance): AccessTable {
  const table: AccessTable = {};
  for (const route of app.routeAccess) {
    if (route.url.startsWith('/docs/')) continue;
    table[`${route.method} ${route.url}`] = route.scope;
  }
  return table;
}

// `::` is a literal colon in a Fastify path; `:name` a parameter.
const concreteUrl = (url: string) =>
  url
    .split('::')
    .map((part) => part.replace(/:[A-Za-z_]+/g, 'x').replace(/\*/g, 'x'))
    .join(':');

/** Whether the answer came from access control (not from the route itself). */
export function refusedByAccess(response: LightMyRequestResponse): boolean {
  if (response.statusCode === 401) return true;
  if (response.statusCode !== 403) return false;
  const detail = String((response.json() as { detail?: unknown }).detail ?? '');
  return (
    detail === ACCESS_DETAILS.localOnly ||
    /^The API key ".*" does not have the ".*" scope\.$/.test(detail)
  );
}

export interface AccessCheckOptions {
  /** `METHOD /url` entries not called with a valid key (e.g. a stream that never ends). */
  skipAuthorized?: readonly string[];
}

/** With keys (`testAccessPolicy()`): 401 without a key, 403 with a weaker one, through with the right one. */
export async function checkKeyedAccess(
  app: FastifyInstance,
  expected: AccessTable,
  options: AccessCheckOptions = {},
): Promise<void> {
  assert.deepEqual(routeTable(app), expected, 'every route declares the scope of the access table');
  for (const [route, scope] of Object.entries(expected)) {
    const [method, url] = route.split(' ') as [string, string];
    const call = (headers: Record<string, string>) =>
      app.inject({ method: method as 'GET', url: concreteUrl(url), headers });
    if (scope === 'open') {
      if (options.skipAuthorized?.includes(route)) continue;
      const anonymous = await call({});
      assert.ok(!refusedByAccess(anonymous), `${route} is open (got ${anonymous.statusCode})`);
      continue;
    }
    const none = await call({});
    assert.equal(none.statusCode, 401, `${route} without a key`);
    assert.match(none.json().detail, /API key/);
    for (const other of KEY_SCOPES.filter((candidate) => candidate !== scope)) {
      const weaker = await call(bearer(other));
      assert.equal(weaker.statusCode, 403, `${route} with a ${other} key (needs ${scope})`);
    }
    if (options.skipAuthorized?.includes(route)) continue;
    const right = await call(bearer(scope));
    assert.ok(!refusedByAccess(right), `${route} with a ${scope} key got ${right.statusCode}`);
  }
}

/** Without keys: `operate` routes refuse a remote socket peer (403) and let a loopback one through. */
export async function checkLocalAccess(
  app: FastifyInstance,
  expected: AccessTable,
  options: AccessCheckOptions = {},
): Promise<void> {
  for (const [route, scope] of Object.entries(expected)) {
    const [method, url] = route.split(' ') as [string, string];
    const call = (remoteAddress: string) =>
      app.inject({
        method: method as 'GET',
        url: concreteUrl(url),
        remoteAddress,
        // A header never makes a peer local.
        headers: { 'edge-connecting-ip': '127.0.0.1', 'x-forwarded-for': '127.0.0.1' },
      });
    const skipped = options.skipAuthorized?.includes(route) ?? false;
    if (scope === 'operate') {
      const remote = await call('203.0.113.7');
      assert.equal(remote.statusCode, 403, `${route} from a remote peer without keys`);
      assert.equal(remote.json().detail, ACCESS_DETAILS.localOnly);
    }
    if (skipped) continue;
    if (scope !== 'operate') {
      const remote = await call('203.0.113.7');
      assert.ok(!refusedByAccess(remote), `${route} (${scope}) from a remote peer`);
    }
    const local = await call('127.0.0.1');
    assert.ok(!refusedByAccess(local), `${route} from loopback got ${local.statusCode}`);
  }
}
