/**
 * What the platform's start waits for (issue 21 item 4): a NATS that refuses the
 * connection is "the broker (NATS)", as a lost database is "the database"; a database
 * that does not exist, or an error of the platform's own, is nothing to wait for.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { createSqlDatabase } from '@platform/core';
import { freePort } from '@platform/testing';
import { createBroker } from '../src/broker/broker.js';
import { unavailableAtStartup } from '../src/startup-dependencies.js';

test('a NATS with nothing listening is the broker to wait for', async () => {
  const db = await createSqlDatabase({ dataDir: 'memory://' });
  try {
    const port = await freePort();
    const error = await createBroker({
      natsUrl: `nats://127.0.0.1:${port}`,
      db,
      logger: pino({ level: 'silent' }),
    }).then(
      () => assert.fail('connected to a port with nothing listening'),
      (failure: unknown) => failure,
    );
    assert.equal(unavailableAtStartup(error), 'the broker (NATS)');
  } finally {
    await db.close();
  }
});

test('a lost database is waited for; a missing one, or any other error, is not', () => {
  const coded = (code: string, message: string) => Object.assign(new Error(message), { code });
  assert.equal(
    unavailableAtStartup(new Error('Connection terminated unexpectedly')),
    'the database',
  );
  assert.equal(unavailableAtStartup(coded('3D000', 'database "x" does not exist')), undefined);
  assert.equal(
    unavailableAtStartup(coded('AUTHORIZATION_VIOLATION', 'Authorization Violation')),
    undefined,
  );
  assert.equal(
    unavailableAtStartup(new Error('listen EADDRINUSE: address already in use')),
    undefined,
  );
});
