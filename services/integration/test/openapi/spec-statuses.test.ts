/**
 * The integration spec's statuses (section 5 endpoint tables, section 7 errors of
 * integration-platform.md) are each declared, with an error body, on their operation of
 * the submission and control-plane documents (issue 22 item 2).
 */
import { test } from 'node:test';
import { assertSpecStatusesDocumented } from '@platform/testing';
import { integrationOpenApiDocuments } from '../../src/openapi-documents.js';

test('every status of the spec is declared on its operation', async () => {
  const documents = await integrationOpenApiDocuments();
  // Section 7 applies to every payload route: 400 contract validation, 404 unknown
  // contract, 500 envelope invalid, 503 broker unavailable.
  const PAYLOAD = [400, 404, 500, 503];
  assertSpecStatusesDocumented(documents['integration-submission'], {
    'POST /interns': [202, 400, 500, 503],
    'GET /interns': [200],
    'POST /contracts/{contractId}/records': [202, ...PAYLOAD],
    'GET /contracts/{contractId}/records': [200, 404],
    // 404 record does not exist, 409 no update-style type.
    'PUT /contracts/{contractId}/records/{naturalKey}': [...PAYLOAD, 409],
    // 409 no tombstone type.
    'DELETE /contracts/{contractId}/records/{naturalKey}': [404, 409, 500, 503],
  });
  assertSpecStatusesDocumented(documents['integration-control-plane'], {
    // 409 contractId exists; 400 invalid definition (success: 201, the spec leaves it open).
    'POST /contracts': [201, 400, 409],
    // 400 config fails the type's schema; 404 unknown contract.
    'POST /contracts/{contractId}/adapters': [201, 400, 404],
    'GET /contracts/{contractId}/adapters': [200, 404],
    'PATCH /contracts/{contractId}/adapters/{attachmentId}': [200, 404],
    'PUT /adapter-types/{type}': [200, 201, 400],
    'POST /dead-letters/{id}/replay': [200, 404],
  });
  // Section 5 "adapter admin": each adapter's own view of its target data.
  assertSpecStatusesDocumented(documents['integration-relational-adapter'], {
    'GET /interns': [200],
  });
});
