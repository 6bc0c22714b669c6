/**
 * The access model (issue 15) as OpenAPI security schemes. OpenAPI 3.0 lets only OAuth
 * schemes name scopes in a requirement, so each key scope is a bearer scheme of its own
 * (`readKey`, `submitKey`, `operateKey`): the same `Authorization: Bearer <key>` header,
 * the scheme's name saying which scope the key must hold. `installAccessControl` puts on
 * every operation the scheme of the scope its route declares, so the document cannot
 * disagree with what the service enforces.
 */
import { KEY_SCOPES, type KeyScope } from '../access/scopes.js';

/** The kinds of security scheme the services use (OpenAPI 3.0 Security Scheme Objects). */
export type SecurityScheme =
  | { type: 'http'; scheme: 'bearer'; description: string }
  | { type: 'apiKey'; in: 'header'; name: string; description: string };

/** The security scheme of an operation needing `scope` (`read` → `readKey`). */
export function securitySchemeName(scope: KeyScope): string {
  return `${scope}Key`;
}

const WHAT_SCOPE_ALLOWS: Record<KeyScope, string> = {
  read: 'reads',
  submit: 'submissions',
  operate: 'operator actions (writes to the configuration, deletions, administration)',
};

/** One bearer scheme per key scope, for `components.securitySchemes`. */
export function accessSecuritySchemes(): Record<string, SecurityScheme> {
  return Object.fromEntries(
    KEY_SCOPES.map((scope) => [
      securitySchemeName(scope),
      {
        type: 'http' as const,
        scheme: 'bearer' as const,
        description:
          `An API key holding the \`${scope}\` scope (${WHAT_SCOPE_ALLOWS[scope]}), sent as ` +
          '`Authorization: Bearer <key>`; keys and their scopes come from API_KEYS. A missing or ' +
          'unknown key is a 401, a key without the scope a 403. Without API_KEYS the service runs ' +
          'in local mode: no key is asked for, and operate operations answer only clients on the ' +
          'same machine.',
      },
    ]),
  );
}

export interface DocumentLike {
  paths?: Record<string, Record<string, { security?: Record<string, unknown>[] } | unknown>>;
  components?: { securitySchemes?: Record<string, unknown> };
}

/**
 * Drops the schemes no operation of `document` names (an adapter's admin API needs no
 * `submitKey`), so each document declares exactly the schemes it uses.
 */
export function withoutUnusedSecuritySchemes<T extends DocumentLike>(document: T): T {
  const declared = document.components?.securitySchemes;
  if (!declared) return document;
  const used = new Set<string>();
  for (const item of Object.values(document.paths ?? {}))
    for (const operation of Object.values(item))
      for (const requirement of (operation as { security?: object[] }).security ?? [])
        for (const name of Object.keys(requirement)) used.add(name);
  const securitySchemes = Object.fromEntries(
    Object.entries(declared).filter(([name]) => used.has(name)),
  );
  return { ...document, components: { ...document.components, securitySchemes } };
}
