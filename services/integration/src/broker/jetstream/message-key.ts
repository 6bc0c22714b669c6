/**
 * How a record's key travels in a NATS header. A header value cannot hold CR or LF, and
 * its surrounding spaces are trimmed on both sides of the wire, yet a key is any text the
 * contract's natural key holds. So a key that would pass through unchanged goes as it is
 * in `Broker-Key` (every key the platform wrote before, and nearly every key: nothing
 * added on the hot path), and any other goes JSON-quoted in `Broker-Key-Quoted`, whose
 * value starts and ends with a quote and escapes every control character. A reader takes
 * either, so messages written before the quoted form existed read as they always did.
 */

/** The header a key that survives a header value unchanged travels in. */
export const KEY_HEADER = 'Broker-Key';
/** The header any other key travels in, as a JSON string. */
export const QUOTED_KEY_HEADER = 'Broker-Key-Quoted';

const LINE_BREAK = /[\r\n]/;

/** The header name and value that carry `key`. */
export function keyHeader(key: string): [name: string, value: string] {
  if (LINE_BREAK.test(key) || key.trim() !== key) return [QUOTED_KEY_HEADER, JSON.stringify(key)];
  return [KEY_HEADER, key];
}

/**
 * The key a header carries, or `undefined` when `name` is not a key header. A quoted value
 * that is not a JSON string (written by something other than this broker) is taken as it
 * stands: a reader that threw here would stop its partition at that message for good.
 */
export function keyFromHeader(name: string, value: string): string | undefined {
  if (name === KEY_HEADER) return value;
  if (name !== QUOTED_KEY_HEADER) return undefined;
  try {
    const key: unknown = JSON.parse(value);
    return typeof key === 'string' ? key : value;
  } catch {
    return value;
  }
}
