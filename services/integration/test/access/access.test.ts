/**
 * Integration access table (issue 15): control-plane writes and dead-letter replay need
 * operate, submission submit, reads read, adapter admin routes operate; the adapter feed
 * (`/attachments`, with secrets) operate; the console page open, its API operate. The
 * platform's parts call each other with the platform key.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ConfigError, listen, parseApiKeys, type AccessPolicy } from '@platform/core';
import {
  bearer,
  checkKeyedAccess,
  checkLocalAccess,
  testAccessPolicy,
  TEST_KEYS,
  type AccessTable,
} from '@platform/testing';
import type { FastifyInstance } from 'fastify';
import { buildCsvAdapter } from '../../src/adapters/csv/build-csv-adapter.js';
import { CSV_CONFIG_SCHEMA } from '../../src/adapters/csv/csv-config.js';
import type { Adapter } from '../../src/adapters/runtime/build-adapter.js';
import { createControlPlaneClient } from '../../src/adapters/runtime/control-plane-client.js';
import { buildControlPlaneApp } from '../../src/control-plane/app.js';
import { platformApiKey } from '../../src/platform-key.js';
import { seedInternsContract } from '../../src/control-plane/seed-interns.js';
import { buildSubmissionApp } from '../../src/submission/app.js';
import { migrateIntegration } from '../../src/migrations.js';
import { internPayload } from '../support/contracts.js';
import { PGLITE_DRIVER } from '../support/harness.js';
import { silentLogger, type OpenBroker } from '../helpers/broker-drivers.js';

const COMMON: AccessTable = {
  'GET /docs': 'open',
  'GET /openapi.json': 'open',
  'GET /health': 'open',
  'GET /metrics': 'operate',
};

const CONTROL_PLANE_ACCESS: AccessTable = {
  ...COMMON,
  'POST /contracts': 'operate',
  'GET /contracts': 'read',
  'GET /contracts/:contractId': 'read',
  'GET /contracts/:contractId/versions': 'read',
  'GET /contracts/:contractId/versions/:version': 'read',
  'POST /contracts/:contractId/compatibility': 'read',
  'POST /contracts/:contractId/versions': 'operate',
  'PUT /adapter-types/:type': 'operate',
  'GET /adapter-types': 'read',
  'GET /adapter-types/:type': 'read',
  'POST /contracts/:contractId/adapters': 'operate',
  'GET /contracts/:contractId/adapters': 'read',
  'PATCH /contracts/:contractId/adapters/:attachmentId': 'operate',
  'GET /attachments': 'operate',
  'GET /dead-letters': 'read',
  'GET /dead-letters/:id': 'read',
  'POST /dead-letters/:id/replay': 'operate',
  'POST /dead-letters/replay': 'operate',
  'GET /console': 'open',
  'GET /console/app.js': 'open',
  'GET /assets/openapi-fetch.js': 'open',
  'GET /console/api/contracts/:contractId/records': 'operate',
  'POST /console/api/contracts/:contractId/records': 'operate',
  'GET /console/api/adapter-types/:type/status': 'operate',
  'POST /console/api/adapter-types/:type/:action': 'operate',
};

const SUBMISSION_ACCESS: AccessTable = {
  ...COMMON,
  'OPTIONS /interns': 'open',
  'POST /contracts/:contractId/records': 'submit',
  'POST /contracts/:contractId/records::batch': 'submit',
  'GET /contracts/:contractId/records': 'read',
  'GET /contracts/:contractId/records/:naturalKey': 'read',
  'PUT /contracts/:contractId/records/:naturalKey': 'submit',
  'DELETE /contracts/:contractId/records/:naturalKey': 'submit',
  'POST /interns': 'submit',
  'GET /interns': 'read',
};

const ADAPTER_ACCESS: AccessTable = {
  ...COMMON,
  'POST /admin/pause': 'operate',
  'POST /admin/resume': 'operate',
  'GET /admin/status': 'operate',
  'GET /interns': 'read',
};

describe('integration access', () => {
  let open: OpenBroker & { cleanup(): Promise<void> };
  let dir: string;
  const apps: FastifyInstance[] = [];
  const adapters: Adapter[] = [];

  const build = async (access?: AccessPolicy, platformKey?: string) => {
    const logger = silentLogger();
    const base = { db: open.db, broker: open.broker, logger, ...(access ? { access } : {}) };
    const controlPlane = await buildControlPlaneApp({
      ...base,
      seedInternsAttachments: false,
      platformApiKey: platformKey,
    });
    const submission = await buildSubmissionApp(base);
    apps.push(controlPlane, submission);
    const controlPlaneUrl = await listen(controlPlane, { port: 0 });
    const adapter = await buildCsvAdapter({
      broker: open.broker,
      logger,
      attachments: createControlPlaneClient({ baseUrl: controlPlaneUrl, apiKey: platformKey }),
      baseDir: join(dir, `csv-${apps.length}`),
      ...(access ? { access } : {}),
    });
    adapters.push(adapter);
    await adapter.app.ready();
    return { controlPlane, submission, adapter };
  };

  before(async () => {
    open = await PGLITE_DRIVER.open();
    await migrateIntegration(open.db);
    dir = await mkdtemp(join(tmpdir(), 'integration-access-'));
  });
  after(async () => {
    for (const adapter of adapters) await adapter.stop().catch(() => undefined);
    for (const app of apps) await app.close();
    await open?.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  test('with API keys: every route of every part as in the table', async () => {
    const parts = await build(testAccessPolicy(), TEST_KEYS.admin);
    await checkKeyedAccess(parts.controlPlane, CONTROL_PLANE_ACCESS);
    await checkKeyedAccess(parts.submission, SUBMISSION_ACCESS);
    await checkKeyedAccess(parts.adapter.app, ADAPTER_ACCESS);
  });

  test('without keys: operator routes answer loopback peers only', async () => {
    const parts = await build();
    await checkLocalAccess(parts.controlPlane, CONTROL_PLANE_ACCESS);
    await checkLocalAccess(parts.submission, SUBMISSION_ACCESS);
    await checkLocalAccess(parts.adapter.app, ADAPTER_ACCESS);
  });

  test('with keys: an adapter registers and reads its attachments with the platform key', async () => {
    const parts = await build(testAccessPolicy(), TEST_KEYS.admin);
    await parts.adapter.start();
    const types = await parts.controlPlane.inject({
      url: '/adapter-types/csv',
      headers: bearer('read'),
    });
    assert.equal(types.statusCode, 200, types.body);
    assert.equal(types.json().adapterType.type, 'csv');
  });

  test('a submitter submits and a reader reads; neither replays dead letters', async () => {
    const { submission, controlPlane } = await build(testAccessPolicy(), TEST_KEYS.admin);
    await seedInternsContract(open.db, open.broker, silentLogger());
    const created = await submission.inject({
      method: 'POST',
      url: '/interns',
      headers: bearer('submit'),
      payload: internPayload(),
    });
    assert.equal(created.statusCode, 202, created.body);
    const listed = await submission.inject({ url: '/interns', headers: bearer('read') });
    assert.equal(listed.statusCode, 200, listed.body);
    for (const scope of ['read', 'submit'] as const) {
      const replay = await controlPlane.inject({
        method: 'POST',
        url: '/dead-letters/1/replay',
        headers: bearer(scope),
      });
      assert.equal(replay.statusCode, 403);
    }
  });

  test('the console relays to an admin URL only where the outbound guard allows (metadata refused: 502)', async () => {
    const { controlPlane } = await build(testAccessPolicy(), TEST_KEYS.admin);
    const registered = await controlPlane.inject({
      method: 'PUT',
      url: '/adapter-types/probe',
      headers: bearer('operate'),
      payload: {
        type: 'probe',
        description: 'probe',
        configSchema: CSV_CONFIG_SCHEMA,
        consumerGroup: 'adapter.probe',
        adminUrl: 'http://169.254.169.254/latest',
      },
    });
    assert.ok(registered.statusCode < 300, registered.body);
    const relayed = await controlPlane.inject({
      url: '/console/api/adapter-types/probe/status',
      headers: bearer('operate'),
    });
    assert.equal(relayed.statusCode, 502);
    assert.match(
      relayed.json().detail,
      /may not be requested: 169\.254\.169\.254 is in a link-local/,
    );
  });

  test('PLATFORM_API_KEY: given, else the first key with every scope, else a config error', () => {
    const keys = (text: string): AccessPolicy => ({
      keys: parseApiKeys(text),
      metricsScope: 'operate',
      docsScope: 'open',
    });
    assert.equal(platformApiKey(keys(''), undefined), undefined);
    assert.equal(
      platformApiKey(keys('a:aaaaaaaaaaaaaaaa:read,b:bbbbbbbbbbbbbbbb'), undefined),
      'bbbbbbbbbbbbbbbb',
    );
    assert.equal(
      platformApiKey(keys('b:bbbbbbbbbbbbbbbb'), 'cccccccccccccccc'),
      'cccccccccccccccc',
    );
    assert.throws(
      () => platformApiKey(keys('a:aaaaaaaaaaaaaaaa:read+submit'), undefined),
      ConfigError,
    );
  });
});
