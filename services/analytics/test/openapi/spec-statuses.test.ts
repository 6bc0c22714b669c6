/**
 * The analytics spec's REST table (section "REST and tools" of sales-analytics.md) is in
 * the document: each route answers 200 with a body (issue 22 item 2). The spec gives no
 * error status; the document's own errors are proven by the response check.
 */
import { test } from 'node:test';
import { assertSpecStatusesDocumented } from '@platform/testing';
import { analyticsOpenApiDocuments } from '../../src/openapi-document.js';

test('every route of the spec is declared with its 200', async () => {
  const { analytics } = await analyticsOpenApiDocuments();
  assertSpecStatusesDocumented(analytics, {
    'GET /api/v1/sales/kpis': [200],
    'GET /api/v1/sales/monthly-trend': [200],
    'GET /api/v1/sales/yoy': [200],
    'GET /api/v1/analytics/customer-ltv': [200],
    'GET /api/v1/analytics/categories/freight': [200],
    'GET /health': [200],
  });
});
