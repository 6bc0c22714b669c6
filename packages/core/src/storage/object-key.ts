/**
 * Object key validation shared by every object store driver.
 *
 * Reads a key (or a listing prefix) and returns nothing; raises `InvalidObjectKeyError`
 * for anything that could name a path outside the store or be read two ways.
 */
import { InvalidObjectKeyError } from './object-store.js';

const MAX_KEY_BYTES = 1024;
/** Control characters (NUL included), backslash, and percent-encoded `/`, `\` and `.`. */
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const FORBIDDEN = /[\u0000-\u001f\u007f\\]|%2f|%5c|%2e/i;

function segmentsAreSafe(segments: string[]): boolean {
  return segments.every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

/**
 * Refuses an empty, absolute or over-long key, a key with empty, `.` or `..` segments,
 * backslashes, control characters (NUL included) or percent-encoded slashes and dots.
 */
export function assertValidObjectKey(key: string): void {
  if (
    typeof key !== 'string' ||
    key === '' ||
    key.startsWith('/') ||
    Buffer.byteLength(key) > MAX_KEY_BYTES ||
    FORBIDDEN.test(key) ||
    !segmentsAreSafe(key.split('/'))
  ) {
    throw new InvalidObjectKeyError(key);
  }
}

/**
 * A listing prefix follows the key rules, except that it may be empty and may end
 * with `/` (`videos/`) or in the middle of a segment (`videos/ab`).
 */
export function assertValidObjectPrefix(prefix: string): void {
  if (prefix === '') return;
  assertValidObjectKey(prefix.endsWith('/') ? prefix.slice(0, -1) : prefix);
}
