/**
 * `waitForDependency` (issue 21 item 4): a start-up step that fails because an engine is
 * unreachable is tried again with a doubling, capped back-off and a warn line naming what
 * it waits for; any other error is thrown at once, after one attempt.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { unavailableDependency, waitForDependency } from '../../src/engines/wait-for-dependency.js';

function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level: 'warn' },
    {
      write: (line: string) => {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  );
  return { logger, lines };
}

const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

test('an unreachable database is waited for with a doubling back-off, capped', async () => {
  const { logger, lines } = capturingLogger();
  let attempts = 0;
  const result = await waitForDependency(
    'applying migrations',
    async () => {
      attempts += 1;
      if (attempts <= 5) throw refused();
      return 'migrated';
    },
    { logger, initialDelayMs: 1, maxDelayMs: 4 },
  );
  assert.equal(result, 'migrated');
  assert.equal(attempts, 6);
  const waits = lines.filter((line) => line.dependency === 'the database');
  assert.deepEqual(
    waits.map((line) => line.retryInMs),
    [1, 2, 4, 4, 4],
  );
  assert.ok(waits.every((line) => line.level === 40));
  assert.match(
    String(waits[0]!.msg),
    /^start-up waits for the database \(connect ECONNREFUSED 127\.0\.0\.1:5432\): applying migrations is tried again in 1 ms$/,
  );
  assert.match(String(lines.at(-1)!.msg), /applying migrations succeeded after 6 attempts/);
});

test('a configuration error is thrown after one attempt', async () => {
  const { logger, lines } = capturingLogger();
  let attempts = 0;
  const missing = Object.assign(new Error('database "nope" does not exist'), { code: '3D000' });
  await assert.rejects(
    waitForDependency(
      'applying migrations',
      async () => {
        attempts += 1;
        throw missing;
      },
      { logger, initialDelayMs: 1 },
    ),
    (error) => error === missing,
  );
  assert.equal(attempts, 1);
  assert.deepEqual(lines, []);
});

test('what counts as unavailable: connection and shutdown errors, not auth, names or SQL', () => {
  const coded = (code: string, message = code) => Object.assign(new Error(message), { code });
  assert.equal(unavailableDependency(refused()), 'the database');
  assert.equal(
    unavailableDependency(new Error('Connection terminated unexpectedly')),
    'the database',
  );
  assert.equal(
    unavailableDependency(coded('57P03', 'the database system is starting up')),
    'the database',
  );
  assert.equal(unavailableDependency(coded('ENOSPC')), 'the disk under the database');
  assert.equal(unavailableDependency(new Error('Connection is closed.')), 'Redis');
  assert.equal(unavailableDependency(coded('28P01', 'password authentication failed')), undefined);
  assert.equal(unavailableDependency(coded('3D000', 'database "x" does not exist')), undefined);
  assert.equal(unavailableDependency(coded('42601', 'syntax error at or near "CREAT"')), undefined);
  assert.equal(
    unavailableDependency(coded('ENOTFOUND', 'getaddrinfo ENOTFOUND db.invalid')),
    undefined,
  );
});
