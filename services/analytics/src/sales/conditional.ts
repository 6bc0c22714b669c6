/**
 * HTTP validators of a read: its `ETag` names the warehouse build (the result of a URL
 * changes only with a new build) and the representation, `Last-Modified` is the build's
 * time; a request whose `If-None-Match` lists the current tag is answered 304 without
 * running the query.
 */
import type { BuildInfo } from '../warehouse/warehouse.js';

export function etagOf(build: BuildInfo, representation: string): string {
  return `"${build.id}.${representation}"`;
}

export function validatorHeaders(build: BuildInfo, representation: string): Record<string, string> {
  return {
    etag: etagOf(build, representation),
    'last-modified': new Date(build.builtAt).toUTCString(),
    'cache-control': 'no-cache',
  };
}
