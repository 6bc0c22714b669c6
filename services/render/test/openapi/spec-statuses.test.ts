/**
 * The render spec's statuses (sections 4 and 7 of render-service.md) are each declared,
 * with an error body, on their operation of the render document (issue 22 item 2).
 */
import { test } from 'node:test';
import { assertSpecStatusesDocumented } from '@platform/testing';
import { renderOpenApiDocuments } from '../../src/openapi-document.js';

// Section 4 "POST /v1/render" (202, admission order) and section 7 (errors by endpoint).
const SUBMISSION = [202, 400, 413, 415, 422, 429, 500, 503];
// Section 4 "POST /v1/skins/upload" (200) and section 7 ("skin upload", "any limited").
const SKIN_UPLOAD = [200, 400, 413, 415, 422, 429];

test('every status of the spec is declared on its operation', async () => {
  const { render } = await renderOpenApiDocuments();
  assertSpecStatusesDocumented(render, {
    'POST /v1/render': SUBMISSION,
    'GET /v1/skins': [200],
    'POST /v1/skins/upload': SKIN_UPLOAD,
    // Section 4 "Artifacts": logs inline 200, the rest a 302; bad prefix 403, missing 404.
    'GET /v1/artifacts/{path}': [200, 302, 403, 404],
    // Legacy routes delegate to v1 and share its validation and limits (section 4).
    'POST /render': SUBMISSION.map((status) => (status === 202 ? 200 : status)),
    'GET /skins': [200],
    'POST /skins/upload': SKIN_UPLOAD,
    'GET /health': [200],
  });
});
