/**
 * Reads API keys from `API_KEYS` or the file `API_KEYS_FILE`.
 *
 * Syntax: entries separated by commas (or new lines in the file; `#` starts a comment),
 * each `name:key` or `name:key:scope+scope` with scopes `read`, `submit`, `operate`.
 * An entry without a scope list holds every scope. Names are `[A-Za-z0-9_.-]{1,64}` (they
 * label metrics and logs); keys are at least 16 characters and never logged.
 *
 * Throws `ConfigError` naming the variable for a malformed entry, a short key, a repeated
 * name or key, or both variables set.
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from '../../config/load-config.js';
import { KEY_SCOPES, type KeyScope } from './scopes.js';

export interface ApiKey {
  /** Shown in logs and metrics in place of the key. */
  readonly name: string;
  readonly key: string;
  readonly scopes: ReadonlySet<KeyScope>;
}

export const MIN_KEY_LENGTH = 16;
const NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const SCOPE_LIST = /^(read|submit|operate)(\+(read|submit|operate))*$/;

/** Parses the text of `API_KEYS` (or of the file); `variable` names the source in errors. */
export function parseApiKeys(text: string, variable = 'API_KEYS'): ApiKey[] {
  const entries = text
    .split(/[,\n]/)
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter(Boolean);
  const keys: ApiKey[] = [];
  entries.forEach((entry, index) => {
    const where = `entry ${index + 1}`;
    const colon = entry.indexOf(':');
    if (colon < 0)
      throw new ConfigError(variable, `${where}: expected name:key or name:key:scope+scope`);
    const name = entry.slice(0, colon);
    let key = entry.slice(colon + 1);
    let scopes: KeyScope[] = [...KEY_SCOPES];
    const last = key.lastIndexOf(':');
    if (last >= 0 && SCOPE_LIST.test(key.slice(last + 1))) {
      scopes = key.slice(last + 1).split('+') as KeyScope[];
      key = key.slice(0, last);
    }
    if (!NAME.test(name))
      throw new ConfigError(variable, `${where}: a key name is 1-64 of A-Z a-z 0-9 _ . -`);
    if (key.length < MIN_KEY_LENGTH) {
      throw new ConfigError(
        variable,
        `${where} (${name}): a key must be at least ${MIN_KEY_LENGTH} characters`,
      );
    }
    if (keys.some((other) => other.name === name))
      throw new ConfigError(variable, `the name ${name} is used twice`);
    if (keys.some((other) => other.key === key))
      throw new ConfigError(variable, `${name}: the same key is given twice`);
    keys.push(Object.freeze({ name, key, scopes: new Set(scopes) }));
  });
  return keys;
}

export interface ApiKeySources {
  API_KEYS?: string | undefined;
  API_KEYS_FILE?: string | undefined;
}

/** The keys of the environment; none when neither variable is set (local mode). */
export function loadApiKeys(
  env: ApiKeySources,
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): ApiKey[] {
  if (env.API_KEYS !== undefined && env.API_KEYS_FILE !== undefined) {
    throw new ConfigError('API_KEYS_FILE', 'set API_KEYS or API_KEYS_FILE, not both');
  }
  if (env.API_KEYS_FILE !== undefined) {
    let text: string;
    try {
      text = readFile(env.API_KEYS_FILE);
    } catch (error) {
      throw new ConfigError(
        'API_KEYS_FILE',
        `cannot read ${env.API_KEYS_FILE} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    const keys = parseApiKeys(text, 'API_KEYS_FILE');
    if (keys.length === 0) throw new ConfigError('API_KEYS_FILE', 'the file lists no key');
    return keys;
  }
  return env.API_KEYS === undefined ? [] : parseApiKeys(env.API_KEYS);
}
