import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import {
  ConfigError,
  booleanVar,
  coreEnvSchema,
  loadConfig,
  nonNegativeIntVar,
  portVar,
  positiveIntVar,
} from '../../src/index.js';

const schema = coreEnvSchema.extend({
  PORT: portVar(8080),
  MAX_QUEUED: positiveIntVar(100),
  FEATURE: booleanVar(true),
  CACHE: nonNegativeIntVar(5),
});

test('defaults apply and values are typed', () => {
  const config = loadConfig(schema, {});
  assert.equal(config.PORT, 8080);
  assert.equal(config.MAX_QUEUED, 100);
  assert.equal(config.FEATURE, true);
  assert.equal(config.CACHE, 5);
  assert.equal(loadConfig(schema, { CACHE: '0' }).CACHE, 0);
  assert.equal(config.DATA_DIR, './data');
  assert.equal(config.DATABASE_URL, undefined);
  assert.ok(Object.isFrozen(config));
  const set = loadConfig(schema, {
    PORT: '9000',
    FEATURE: 'false',
    DATABASE_URL: 'postgres://u@h/db',
    TRUSTED_PROXIES: '10.0.0.0/8, ::1',
    DATA_DIR: '',
  });
  assert.deepEqual(
    [set.PORT, set.FEATURE, set.DATABASE_URL, set.TRUSTED_PROXIES, set.DATA_DIR],
    [9000, false, 'postgres://u@h/db', ['10.0.0.0/8', '::1'], './data'],
  );
});

test('a wrong value names the variable and what it expects', () => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'abc' }, /^PORT: .*port.*got "abc"/],
    [{ PORT: '70000' }, /^PORT: expected an integer port between 0 and 65535/],
    [{ PORT: '-1' }, /^PORT: expected an integer port between 0 and 65535/],
    [{ MAX_QUEUED: '-1' }, /^MAX_QUEUED: expected a positive integer/],
    [{ FEATURE: 'maybe' }, /^FEATURE: expected true or false/],
    [{ CACHE: '-3' }, /^CACHE: expected a whole number \(0 or more\)/],
    [
      { DATABASE_URL: 'mysql://x' },
      /^DATABASE_URL: expected a URL \(postgres:\/\/… or postgresql:\/\/…\)/,
    ],
    [{ TRUSTED_PROXIES: '10.0.0.0/99' }, /^TRUSTED_PROXIES: expected a comma-separated list/],
    [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL: expected one of/],
  ];
  for (const [env, pattern] of cases) {
    assert.throws(
      () => loadConfig(schema, env),
      (error: unknown) => error instanceof ConfigError && pattern.test(error.message),
    );
  }
});

test('a wrong secret is named, never echoed', () => {
  assert.throws(
    () => loadConfig(schema, { SIGNING_SECRET: 'hunter2-short' }),
    (error: unknown) =>
      error instanceof ConfigError &&
      /^SIGNING_SECRET: expected at least 16 characters \(got 13 characters, not shown\)$/.test(
        error.message,
      ) &&
      !error.message.includes('hunter2'),
  );
});

test('loadConfigOrExit stops the process with one line on stderr', () => {
  const script = `import { loadConfigOrExit, coreEnvSchema, portVar } from ${JSON.stringify(fileURLToPath(new URL('../../src/index.ts', import.meta.url)))};
    loadConfigOrExit(coreEnvSchema.extend({ PORT: portVar(1) }));
    console.log('should not print');`;
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script],
    {
      env: { ...process.env, PORT: 'eighty' },
      encoding: 'utf8',
    },
  );
  assert.equal(result.status, 78);
  assert.equal(result.stdout, '');
  assert.equal(result.stderr.trim().split('\n').length, 1);
  assert.match(result.stderr, /^configuration error: PORT: /);
});
