/**
 * `src/main.ts` started while its PostgreSQL is unreachable (issue 21 item 4): the start
 * (migrations, the SQL-log broker, topics, the interns seed) waits, saying at warn what
 * for, and the platform serves once the database answers, without exiting. A database
 * that does not exist is a configuration error: the process still exits at once with it.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test, type TestContext } from 'node:test';
import {
  assertExitsOnMissingDatabase,
  missingDatabaseUrl,
  spawnServiceMain,
  startupTestPostgres,
  unreachableTestDatabase,
  WAITS_FOR_DATABASE,
} from '@platform/testing';
import { platformPorts } from '../support/platform-env.js';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const { url: postgresUrl, skip } = await startupTestPostgres();

async function startIntegration(t: TestContext, databaseUrl: string) {
  const ports = await platformPorts();
  const platform = await spawnServiceMain(t, MAIN, {
    ...ports,
    DATABASE_URL: databaseUrl,
    INTEGRATION_ROLES: 'control-plane,submission',
  });
  const url = (name: string) => `http://127.0.0.1:${ports[name]}`;
  return { ...platform, controlPlane: url('CONTROL_PLANE_PORT'), submission: url('PORT') };
}

test(
  'the platform waits for an unreachable PostgreSQL and serves once it answers',
  { skip },
  async (t) => {
    const database = await unreachableTestDatabase(t, 'startup_retry_integration');
    const platform = await startIntegration(t, database.url);
    await platform.waitForOutput(
      'a warn line saying that the start waits for the database',
      WAITS_FOR_DATABASE,
    );
    database.proxy.restore();
    await platform.waitForHealth([platform.controlPlane, platform.submission]);
    // It serves from the database it waited for.
    const interns = await fetch(`${platform.submission}/interns`);
    assert.equal(interns.status, 200);
    assert.match(platform.output(), /starting the platform \([^)]*\) succeeded after \d+ attempts/);
  },
);

test(
  'the platform exits at once, with the reason, when the database does not exist',
  { skip },
  async (t) => {
    const platform = await startIntegration(t, missingDatabaseUrl(postgresUrl!));
    await assertExitsOnMissingDatabase(platform, /integration platform failed to start/);
  },
);
