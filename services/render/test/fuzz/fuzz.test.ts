/**
 * Bad-input run over every render route (issue 15): `npm test` sends a short run,
 * `npm run fuzz` a long one (FUZZ_REQUESTS, FUZZ_TIME_MS). No 500s; heap growth bounded.
 */
import { after, before, test } from 'node:test';
import { assertFuzzClean, fuzzApp, fuzzSettings } from '@platform/testing';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../helpers/app.js';
import { openTestEngines, type TestEngines } from '../helpers/harness.js';

const settings = fuzzSettings();

let engines: TestEngines;
let app: FastifyInstance;
before(async () => {
  engines = await openTestEngines('embedded', { renderRateLimit: 1_000_000, maxQueued: 1_000_000 });
  app = await buildTestApp(engines);
});
after(async () => {
  await app?.close();
  await engines?.close();
});

test(`fuzz: ${settings.requests} bad requests over every route, no 500, bounded heap`, async (t) => {
  const report = await fuzzApp(app, {
    ...settings,
    skip: ['GET /v1/jobs/:job_id/events'],
  });
  t.diagnostic(JSON.stringify(report));
  assertFuzzClean(report);
});
