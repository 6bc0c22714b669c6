/**
 * json and jsonb values come back parsed on every engine: each driver installs this
 * parser for both types itself, rather than relying on a library default that another
 * module (or a future version) may change, so callers never look at a string and guess.
 */

/** PostgreSQL type OIDs of `json` and `jsonb`. */
export const JSON_TYPE_OIDS: readonly number[] = [114, 3802];

export const parseJsonValue = (text: string): unknown => JSON.parse(text);
