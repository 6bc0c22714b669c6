/**
 * Ajv coerces `Infinity`, `-Infinity` and `1e999` in a query string or a path to a number
 * that is not finite, and its `minimum`/`maximum` checks then let some through (a route
 * would see `Infinity` where its schema promised a bounded number). Checked once for every
 * route, after validation: such a value is refused like any other schema failure.
 */
import type { FastifyRequest } from 'fastify';

/** The first coerced query or path value that is not a finite number, as a validation detail. */
export function nonFiniteParameter(request: FastifyRequest): string | undefined {
  const parts: Array<[string, unknown]> = [
    ['querystring', request.query],
    ['params', request.params],
  ];
  for (const [part, values] of parts) {
    if (!values || typeof values !== 'object') continue;
    for (const [name, value] of Object.entries(values)) {
      const list: unknown[] = Array.isArray(value) ? value : [value];
      if (list.some((v) => typeof v === 'number' && !Number.isFinite(v)))
        return `${part}/${name} must be a finite number`;
    }
  }
  return undefined;
}
