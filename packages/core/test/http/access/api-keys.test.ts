import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  accessPolicyFromEnv,
  ConfigError,
  listenHost,
  loadApiKeys,
  loadConfig,
  parseApiKeys,
  coreEnvSchema,
} from '../../../src/index.js';

const KEY = 'k'.repeat(16);

test('name:key holds every scope; name:key:scope+scope holds those; keys may contain colons', () => {
  const keys = parseApiKeys(`ops:${KEY}, ci:${KEY}x:read+submit,reader:a:b:${KEY}:read`);
  assert.deepEqual(
    keys.map((key) => [key.name, key.key, [...key.scopes]]),
    [
      ['ops', KEY, ['read', 'submit', 'operate']],
      ['ci', `${KEY}x`, ['read', 'submit']],
      ['reader', `a:b:${KEY}`, ['read']],
    ],
  );
});

test('bad entries are configuration errors that never echo the key', () => {
  for (const [text, message] of [
    ['nocolon', /expected name:key/],
    [`bad name:${KEY}`, /key name/],
    ['ops:short', /at least 16 characters/],
    [`a:${KEY},a:${KEY}y`, /used twice/],
    [`a:${KEY},b:${KEY}`, /same key/],
  ] as const) {
    assert.throws(
      () => parseApiKeys(text),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(error.variable, 'API_KEYS');
        assert.match(error.message, message);
        assert.doesNotMatch(error.message, new RegExp(KEY));
        return true;
      },
    );
  }
});

test('API_KEYS_FILE: one entry per line with comments; unreadable, empty or both set is an error', () => {
  const files: Record<string, string> = {
    '/keys': `# operators\nops:${KEY}:operate\n\nreader:${KEY}r:read # dashboards\n`,
    '/empty': '# none\n',
  };
  const read = (path: string) => {
    const text = files[path];
    if (text === undefined) throw Object.assign(new Error('no'), { code: 'ENOENT' });
    return text;
  };
  assert.deepEqual(
    loadApiKeys({ API_KEYS_FILE: '/keys' }, read).map((key) => key.name),
    ['ops', 'reader'],
  );
  assert.throws(
    () => loadApiKeys({ API_KEYS_FILE: '/missing' }, read),
    /API_KEYS_FILE: cannot read \/missing \(ENOENT\)/,
  );
  assert.throws(() => loadApiKeys({ API_KEYS_FILE: '/empty' }, read), /lists no key/);
  assert.throws(
    () => loadApiKeys({ API_KEYS: `a:${KEY}`, API_KEYS_FILE: '/keys' }, read),
    /not both/,
  );
  assert.deepEqual(loadApiKeys({}), []);
});

test('the environment: HOST defaults to 127.0.0.1 without keys and 0.0.0.0 with; scopes of /metrics and /docs', () => {
  const local = loadConfig(coreEnvSchema, {});
  assert.equal(listenHost(local), '127.0.0.1');
  assert.deepEqual(accessPolicyFromEnv(local), {
    keys: [],
    metricsScope: 'operate',
    docsScope: 'open',
  });
  const keyed = loadConfig(coreEnvSchema, {
    API_KEYS: `ops:${KEY}`,
    METRICS_SCOPE: 'read',
    DOCS_SCOPE: 'operate',
  });
  assert.equal(listenHost(keyed), '0.0.0.0');
  assert.equal(listenHost({ ...keyed, HOST: '10.1.1.1' }), '10.1.1.1');
  assert.equal(listenHost({ ...local, HOST: '0.0.0.0' }), '0.0.0.0');
  const policy = accessPolicyFromEnv(keyed);
  assert.deepEqual(
    [policy.keys.length, policy.metricsScope, policy.docsScope],
    [1, 'read', 'operate'],
  );
  assert.throws(
    () => loadConfig(coreEnvSchema, { METRICS_SCOPE: 'public' }),
    /METRICS_SCOPE: expected one of read, submit, operate, open/,
  );
  assert.throws(
    () => accessPolicyFromEnv(loadConfig(coreEnvSchema, { API_KEYS: 'x' })),
    /API_KEYS: entry 1/,
  );
});
