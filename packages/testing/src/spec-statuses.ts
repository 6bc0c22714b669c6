/**
 * Spec and document agree (issue 22 item 2): a service's test lists, per operation, the
 * statuses its spec's tables give (`'POST /v1/render': [202, 400, …]`, transcribed with
 * the section they come from), and this checks that its OpenAPI document declares each
 * of them on that operation, with a body schema for every error.
 */
import assert from 'node:assert/strict';

type Responses = Record<string, { content?: Record<string, { schema?: unknown }> }>;
interface OpenApiDocument {
  paths: Record<string, Record<string, { responses?: Responses }>>;
}

/** Operation (`METHOD /openapi/{path}`) → the statuses the spec says it answers. */
export type SpecStatuses = Record<string, readonly number[]>;

export function assertSpecStatusesDocumented(document: unknown, spec: SpecStatuses): void {
  const { paths } = document as OpenApiDocument;
  const missing: string[] = [];
  for (const [operation, statuses] of Object.entries(spec)) {
    const [method, path] = operation.split(' ') as [string, string];
    const responses = paths[path]?.[method.toLowerCase()]?.responses;
    if (!responses) {
      missing.push(`${operation}: not in the document`);
      continue;
    }
    for (const status of statuses) {
      const response = responses[String(status)];
      if (!response) missing.push(`${operation}: ${status} not declared`);
      else if (status >= 400 && !response.content?.['application/json']?.schema)
        missing.push(`${operation}: ${status} declared without its error body`);
    }
  }
  assert.deepEqual(missing, [], 'every status of the spec is in the document');
}
