/**
 * DNS-rebinding guard for every route but `/health`: a page on another site can make a
 * browser send requests to this service (a name of the attacker's that resolves to
 * 127.0.0.1), with that name as `Host` and its own `Origin`. So the service answers only
 * requests whose `Host` is one of `ALLOWED_HOSTS` and, when a browser sends an `Origin`,
 * whose origin is one of `ALLOWED_ORIGINS`. Comparing `Origin` with `Host` (what MCP did
 * before) is not enough: on a rebound name both are the attacker's.
 *
 * Defaults: the loopback names (`localhost`, `127.0.0.1`, `::1`) on any port, for hosts
 * and for origins. A deployment behind a name lists it (`ALLOWED_HOSTS=analytics.example.com`);
 * `*` allows any host (the operator's proxy checks it).
 */
import { errorResponses, replyWithError } from '@platform/core';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { analyticsErrors } from '../errors.js';

export interface HostGuardOptions {
  /** Host names (no port) answered; `*` for any. @defaultValue the loopback names */
  allowedHosts?: string[];
  /** Origins (`scheme://host[:port]`) a browser may call from. @defaultValue loopback origins */
  allowedOrigins?: string[];
}

export const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];

/** `example.com:8000` → `example.com`, `[::1]:8000` → `::1`; lower case. */
export function hostName(host: string): string {
  const value = host.trim().toLowerCase();
  if (value.startsWith('[')) return value.slice(1, value.indexOf(']'));
  const colon = value.lastIndexOf(':');
  return colon >= 0 && value.indexOf(':') === colon ? value.slice(0, colon) : value;
}

const GUARD_RESPONSE = errorResponses(analyticsErrors.definitions, [
  'HOST_NOT_ALLOWED',
  'ORIGIN_NOT_ALLOWED',
])[403]!;

/**
 * The guard answers 403 on every route registered after it, so each documents that 403
 * (beside the access model's, when the route has one).
 */
function documentGuard(route: RouteOptions): void {
  const schema = route.schema as
    { hide?: boolean; response?: Record<string, { description?: string }> } | undefined;
  if (!schema || schema.hide) return;
  const existing = schema.response?.[403];
  const response = existing
    ? {
        ...existing,
        description: `${existing.description ?? ''} ${GUARD_RESPONSE.description}`.trim(),
      }
    : GUARD_RESPONSE;
  route.schema = {
    ...route.schema,
    response: { ...schema.response, 403: response },
  } as RouteOptions['schema'];
}

export function registerHostGuard(app: FastifyInstance, options: HostGuardOptions = {}): void {
  app.addHook('onRoute', documentGuard);
  const hosts = new Set((options.allowedHosts ?? LOOPBACK_NAMES).map((h) => h.toLowerCase()));
  const anyHost = hosts.has('*');
  const origins = options.allowedOrigins?.map((origin) => origin.toLowerCase().replace(/\/+$/, ''));

  const originAllowed = (origin: string): boolean => {
    if (origins) return origins.includes('*') || origins.includes(origin.toLowerCase());
    try {
      const url = new URL(origin);
      return (
        ['http:', 'https:'].includes(url.protocol) && LOOPBACK_NAMES.includes(hostName(url.host))
      );
    } catch {
      return false;
    }
  };

  app.addHook('onRequest', async (request, reply) => {
    if (request.url === '/health' || request.url.startsWith('/health?')) return;
    const host = request.headers.host ?? '';
    if (!anyHost && !hosts.has(hostName(host))) {
      return replyWithError(
        reply,
        analyticsErrors.HOST_NOT_ALLOWED({
          detail: `Host ${JSON.stringify(host)} is not allowed; see ALLOWED_HOSTS`,
        }),
      );
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !originAllowed(origin)) {
      return replyWithError(
        reply,
        analyticsErrors.ORIGIN_NOT_ALLOWED({
          detail: `Origin ${JSON.stringify(origin)} is not allowed; see ALLOWED_ORIGINS`,
        }),
      );
    }
  });
}
