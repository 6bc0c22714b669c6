/**
 * What a route needs from a caller. Routes declare it in their Fastify options
 * (`config: { scope: 'read' }`); a route that declares nothing needs `operate`, so a
 * route someone forgot to classify is closed rather than public.
 */
export const KEY_SCOPES = ['read', 'submit', 'operate'] as const;

/** A permission an API key can hold. */
export type KeyScope = (typeof KEY_SCOPES)[number];

/** What a route needs: a key scope, or `open` for anyone. */
export type RouteScope = KeyScope | 'open';

export const ROUTE_SCOPES: readonly RouteScope[] = [...KEY_SCOPES, 'open'];

/** The scope of a route that declares none. */
export const DEFAULT_ROUTE_SCOPE: RouteScope = 'operate';

export function isRouteScope(value: unknown): value is RouteScope {
  return typeof value === 'string' && (ROUTE_SCOPES as readonly string[]).includes(value);
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call this route (issue 15 access model). @defaultValue `operate` */
    scope?: RouteScope;
  }
}
