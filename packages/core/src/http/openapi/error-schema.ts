/**
 * The one error body every service answers with: `{"detail": ...}`, and a stable `code`
 * beside it where the error has one. Registered by `createHttpApp` as the shared schema
 * `Error`, so each document has one `Error` component and clients one error type.
 */
export const ERROR_SCHEMA_ID = 'Error';

export const errorSchema = {
  $id: ERROR_SCHEMA_ID,
  type: 'object',
  description: 'An error: `detail` is for people, `code` (when present) is stable for programs.',
  required: ['detail'],
  properties: {
    detail: { type: 'string', description: 'What went wrong, in words.' },
    code: { type: 'string', description: 'A stable name of the error, for programs.' },
  },
  additionalProperties: true,
} as const;

/** A route-schema response of the shared error shape: `response: { 404: errorResponse('…') }`. */
export function errorResponse(description: string) {
  return { description, $ref: `${ERROR_SCHEMA_ID}#` } as const;
}

/**
 * The error answers of a route from its error registry: one response per status, its
 * description listing each code and detail (`errorResponses(errors.definitions, ['CONTRACT_NOT_FOUND'])`).
 */
export function errorResponses<T extends Record<string, { status: number; detail: string }>>(
  definitions: T,
  codes: readonly (keyof T & string)[],
): Record<number, ReturnType<typeof errorResponse>> {
  const lines: Record<number, string[]> = {};
  for (const code of codes) {
    const { status, detail } = definitions[code]!;
    (lines[status] ??= []).push(`\`${code}\`: ${detail}`);
  }
  return Object.fromEntries(
    Object.entries(lines).map(([status, text]) => [status, errorResponse(text.join('; '))]),
  );
}
