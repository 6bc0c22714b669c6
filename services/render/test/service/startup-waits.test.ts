/**
 * `src/main.ts` started while its PostgreSQL is unreachable (issue 21 item 4; the chaos
 * run's worker exited on `read ECONNRESET` from its start-up migrations): it waits, saying
 * at warn what for, and serves once the database answers, without exiting. A database
 * that does not exist is a configuration error: the process still exits at once with it.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test, type TestContext } from 'node:test';
import {
  assertExitsOnMissingDatabase,
  freePort,
  madeOsuFixturesDir,
  missingDatabaseUrl,
  spawnServiceMain,
  startupTestPostgres,
  unreachableTestDatabase,
  WAITS_FOR_DATABASE,
} from '@platform/testing';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const { url: postgresUrl, skip } = await startupTestPostgres();

async function startRender(t: TestContext, databaseUrl: string) {
  const port = await freePort();
  const service = await spawnServiceMain(t, MAIN, {
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    BEATMAPS_DIR: madeOsuFixturesDir(),
  });
  return { ...service, base: `http://127.0.0.1:${port}` };
}

test(
  'main.ts waits for an unreachable PostgreSQL and serves once it answers',
  { skip },
  async (t) => {
    const database = await unreachableTestDatabase(t, 'startup_retry_render');
    const service = await startRender(t, database.url);
    await service.waitForOutput(
      'a warn line saying that start-up waits for the database',
      WAITS_FOR_DATABASE,
    );
    database.proxy.restore();
    await service.waitForHealth([service.base]);
    // It serves from the database it waited for: an unknown job is looked up there.
    const unknown = await fetch(`${service.base}/v1/jobs/00000000-0000-4000-8000-000000000000`);
    assert.equal(unknown.status, 404);
    assert.match(service.output(), /applying its migrations succeeded after \d+ attempts/);
  },
);

test(
  'main.ts exits at once, with the reason, when the database does not exist',
  { skip },
  async (t) => {
    const service = await startRender(t, missingDatabaseUrl(postgresUrl!));
    await assertExitsOnMissingDatabase(service, /render service failed to start/);
  },
);
