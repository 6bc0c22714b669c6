/** Both HTTP apps publish an OpenAPI document covering every route, each with a summary. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { json, openHarness, type Harness } from '../support/harness.js';

describe('OpenAPI documents', () => {
  let h: Harness;
  before(async () => {
    h = await openHarness();
  });
  after(async () => h?.close());

  it('lists every route of the control plane and the submission service with a summary', async () => {
    for (const [app, expected] of [
      [
        h.controlPlane,
        [
          '/contracts',
          '/contracts/{contractId}/versions',
          '/contracts/{contractId}/compatibility',
          '/adapter-types/{type}',
          '/contracts/{contractId}/adapters/{attachmentId}',
          '/attachments',
          '/dead-letters/{id}/replay',
          '/console',
        ],
      ],
      [
        h.submission,
        [
          '/contracts/{contractId}/records',
          '/contracts/{contractId}/records/{naturalKey}',
          '/interns',
        ],
      ],
    ] as const) {
      const response = await app.inject({ url: '/openapi.json' });
      assert.equal(response.statusCode, 200);
      const doc = json<{ paths: Record<string, Record<string, { summary?: string }>> }>(response);
      for (const path of expected) assert.ok(doc.paths[path], `${path} in the OpenAPI document`);
      for (const [path, operations] of Object.entries(doc.paths)) {
        for (const [method, operation] of Object.entries(operations))
          assert.ok(operation.summary, `${method} ${path} has a summary`);
      }
    }
  });
});
