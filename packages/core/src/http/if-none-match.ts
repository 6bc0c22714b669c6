/**
 * RFC 9110 13.1.2: whether an `If-None-Match` header names the current ETag — `*`, or any
 * listed tag equal under weak comparison (a `W/` prefix on either side is ignored). Used
 * by every route that answers 304.
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => opaque(tag) === opaque(etag));
}
