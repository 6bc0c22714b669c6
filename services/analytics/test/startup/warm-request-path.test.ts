/**
 * The start's warm-up (`warm-request-path.ts`): the requests go through the app over a
 * socket and are answered 200, yet none is in the request log or the metrics; a read that
 * is refused (a warehouse not built yet) stops it with the reason.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '@platform/core';
import type { Histogram } from 'prom-client';
import { buildAnalyticsApp } from '../../src/app.js';
import { warmRequestPath } from '../../src/startup/warm-request-path.js';
import { createWarehouse } from '../../src/warehouse/warehouse.js';
import {
  createWarehouseFixture,
  silentLogger,
  type WarehouseFixture,
} from '../helpers/warehouse-fixture.js';

describe('the request path warmed before the port opens', () => {
  let fixture: WarehouseFixture;
  let dir: string;
  before(async () => {
    fixture = await createWarehouseFixture();
    dir = await mkdtemp(join(tmpdir(), 'analytics-warm-up-'));
  });
  after(async () => {
    await fixture.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves its requests over a socket, outside the request log and the metrics', async () => {
    const file = join(dir, 'service.log');
    const logger = createLogger({ service: 'analytics', level: 'info', file });
    const app = await buildAnalyticsApp({ warehouse: fixture.warehouse, logger });
    const served: { status: number; socket: boolean }[] = [];
    app.addHook('onResponse', async (request, reply) => {
      // A socket of its own: light-my-request's (inject) has no remote port.
      served.push({
        status: reply.statusCode,
        socket: request.raw.socket.remotePort !== undefined,
      });
    });
    try {
      const result = await warmRequestPath(app, { requests: 40, logger });
      assert.deepEqual({ ...result, ms: 0 }, { warmed: true, requests: 40, ms: 0 });
      assert.equal(served.length, 40);
      assert.ok(served.every(({ status, socket }) => status === 200 && socket));

      const metrics = await app.metricsRegistry.getMetricsAsJSON();
      const counted = (name: string) =>
        metrics.find((metric) => metric.name === name)?.values.length ?? 0;
      assert.equal(counted('http_request_duration_seconds'), 0, 'no request timed');
      assert.equal(counted('analytics_tool_calls_total'), 0, 'no tool call counted');
      assert.equal((await readFile(file, 'utf8')).match(/request completed/g)?.length ?? 0, 0);

      // A request afterwards is the service's: logged and timed.
      assert.equal((await app.inject({ url: '/api/v1/sales/kpis' })).statusCode, 200);
      logger.flush();
      assert.equal((await readFile(file, 'utf8')).match(/request completed/g)?.length, 1);
      const histogram = app.metricsRegistry.getSingleMetric(
        'http_request_duration_seconds',
      ) as Histogram;
      assert.equal(
        (await histogram.get()).values.some((value) => value.value > 0),
        true,
      );
    } finally {
      await app.close();
    }
  });

  it('stops at a refused read and says why', async () => {
    const warehouse = createWarehouse({ file: join(dir, 'absent.duckdb') });
    const app = await buildAnalyticsApp({ warehouse, logger: silentLogger() });
    try {
      assert.deepEqual(await warmRequestPath(app, { requests: 40, logger: silentLogger() }), {
        warmed: false,
        reason: 'GET /api/v1/sales/kpis answered 503',
      });
    } finally {
      await app.close();
      await warehouse.close();
    }
  });
});
