/**
 * The key the parts of the integration platform present to each other when it runs with
 * API keys: adapters to the control plane (register their type, read attachments), the
 * console to the submission service and to adapters' admin APIs. `PLATFORM_API_KEY`
 * names it; unset, the first key of `API_KEYS` holding every scope is used, so one
 * process running every part needs nothing more. Without keys (local mode) none is sent.
 */
import { ConfigError, KEY_SCOPES, type AccessPolicy } from '@platform/core';

export function platformApiKey(
  access: AccessPolicy,
  configured: string | undefined,
): string | undefined {
  if (access.keys.length === 0) return undefined;
  if (configured !== undefined) return configured;
  const full = access.keys.find((key) => KEY_SCOPES.every((scope) => key.scopes.has(scope)));
  if (!full) {
    throw new ConfigError(
      'PLATFORM_API_KEY',
      'set it to the key the platform parts present to each other: no key of API_KEYS holds read, submit and operate',
    );
  }
  return full.key;
}
