/**
 * The services' own pages call their APIs through the typed client's runtime (openapi-fetch,
 * served at `/assets/openapi-fetch.js`): no page calls `fetch` itself, and every call names a
 * method and path its service's document has. The pages are browser scripts without a
 * compiler, so this is the check a TypeScript caller gets from the generated types.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const root = new URL('../../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

/** Each page's source, with the document its calls go to. */
const PAGES: { source: string; document: string }[] = [
  { source: 'services/render/src/pages/home-page.ts', document: 'render' },
  { source: 'services/render/src/pages/player-page.ts', document: 'render' },
  { source: 'services/analytics/src/dashboard/dashboard.js', document: 'analytics' },
  { source: 'services/analytics/src/agent/chat-page.ts', document: 'analytics' },
  {
    source: 'services/integration/src/control-plane/console/console.js',
    document: 'integration-control-plane',
  },
];

// `api.GET('/path', …)` (openapi-fetch's own methods) and `api('GET', '/path', …)` (the
// console's wrapper, which adds its key prompt around `client.request`).
const CALL =
  /\bapi(?:\.(GET|POST|PUT|PATCH|DELETE)\(\s*'([^']+)'|\(\s*'(GET|POST|PUT|PATCH|DELETE)',\s*'([^']+)')/g;

function calls(source: string): { method: string; path: string }[] {
  return [...source.matchAll(CALL)].map((m) => ({
    method: (m[1] ?? m[3])!.toLowerCase(),
    path: (m[2] ?? m[4])!,
  }));
}

for (const { source, document } of PAGES) {
  test(`${source} calls documented operations through the client, never fetch`, () => {
    const text = read(source);
    const doc = JSON.parse(read(`packages/client/openapi/${document}.json`)) as {
      paths: Record<string, Record<string, unknown>>;
    };
    assert.match(
      text,
      /import createClient from '(\/assets\/openapi-fetch\.js|\$\{CLIENT_MODULE_PATH\})'/,
    );
    assert.doesNotMatch(text, /\bfetch\(/, 'no direct fetch: calls go through the client');
    const found = calls(text);
    assert.ok(found.length > 0, 'the page calls its API');
    for (const { method, path } of found)
      assert.ok(
        doc.paths[path]?.[method],
        `${method.toUpperCase()} ${path} is in ${document}.json`,
      );
  });
}

test('the call pattern reads both forms and only them', () => {
  assert.deepEqual(
    calls(
      "api.GET('/v1/jobs/{job_id}', x); api('POST', '/contracts', { body }); fetch('/contracts'); client.GET('/x')",
    ),
    [
      { method: 'get', path: '/v1/jobs/{job_id}' },
      { method: 'post', path: '/contracts' },
    ],
  );
});
