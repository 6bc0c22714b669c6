/**
 * The embedded default's database with nothing configured (issue 11): the integration
 * platform turns core's `PGLITE_THREAD` on, so its PGlite runs on a thread of its own and
 * the main thread's event loop keeps turning while a statement runs (HTTP and the
 * adapters go on beside it). `PGLITE_THREAD=false` keeps PGlite on the main thread, where
 * a statement holds the loop until it ends. Core's own default stays off (render and
 * analytics keep theirs).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { coreEnvSchema, type SqlDatabase } from '@platform/core';
import { integrationEnvSchema } from '../../src/config.js';
import { startPlatform } from '../../src/platform.js';
import { silentLogger } from '../helpers/broker-drivers.js';
import { platformEnv } from '../support/platform-env.js';

/** How often the event loop came round (a `setImmediate` chain) while `sql` ran. */
async function loopTurnsDuring(db: SqlDatabase, sql: string): Promise<number> {
  let turns = 0;
  let running = true;
  const turn = () => {
    if (!running) return;
    turns += 1;
    setImmediate(turn);
  };
  setImmediate(turn);
  try {
    await db.query(sql);
  } finally {
    running = false;
  }
  return turns;
}

/** Loop turns during a 300 ms statement on the platform started with `overrides`. */
async function turnsOnPlatform(
  dataDir: string,
  overrides: Record<string, string>,
): Promise<number> {
  const platform = await startPlatform({
    env: platformEnv({ DATA_DIR: dataDir, INTEGRATION_ROLES: 'control-plane', ...overrides }),
    logger: silentLogger(),
  });
  try {
    assert.equal(platform.db.engine, 'pglite');
    return await loopTurnsDuring(platform.db, 'SELECT pg_sleep(0.3)');
  } finally {
    await platform.close();
  }
}

describe('the embedded default database', () => {
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'integration-embedded-db-'));
  });
  after(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('is PGlite on a thread of its own unless PGLITE_THREAD says otherwise', () => {
    assert.equal(integrationEnvSchema.parse({}).PGLITE_THREAD, true);
    assert.equal(integrationEnvSchema.parse({ PGLITE_THREAD: 'false' }).PGLITE_THREAD, false);
    assert.equal(coreEnvSchema.parse({}).PGLITE_THREAD, false);
  });

  it('leaves the main thread free while a statement runs', async () => {
    // About 300,000 turns here on the thread; none at all on the main thread.
    const turns = await turnsOnPlatform(join(dataDir, 'default'), {});
    assert.ok(turns > 1000, `the event loop turned ${turns} times during the statement`);
  });

  it('runs on the main thread with PGLITE_THREAD=false, holding the loop', async () => {
    // The database the test before created on the thread: turning the setting off on an
    // existing database is an operator's switch (and opening one is quicker than creating it).
    const turns = await turnsOnPlatform(join(dataDir, 'default'), { PGLITE_THREAD: 'false' });
    assert.ok(turns < 100, `the event loop turned ${turns} times during the statement`);
  });
});
