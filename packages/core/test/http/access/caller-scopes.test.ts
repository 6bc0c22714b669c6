/** callerHasScope: what a route open to submitters may additionally allow operators. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import {
  callerHasScope,
  createHttpApp,
  createLogger,
  parseApiKeys,
  type AccessPolicy,
} from '../../../src/index.js';

const logger = createLogger({ service: 'test', level: 'silent' });
const OPS = 'ops-key-0123456789abcdef';
const SUBMITTER = 'submitter-key-0123456789';

async function buildApp(access?: AccessPolicy): Promise<FastifyInstance> {
  const app = await createHttpApp({ service: 'test', logger, ...(access ? { access } : {}) });
  app.delete('/things/:id', { config: { scope: 'submit' } }, async (request) => ({
    operator: callerHasScope(request, 'operate'),
  }));
  app.get('/public', { config: { scope: 'open' } }, async (request) => ({
    operator: callerHasScope(request, 'operate'),
  }));
  await app.ready();
  return app;
}

const operatorOf = async (app: FastifyInstance, options: Record<string, unknown>) =>
  (await app.inject({ method: 'DELETE', url: '/things/1', ...options })).json().operator;

test('with keys: the key decides, whatever the peer', async () => {
  const app = await buildApp({
    keys: parseApiKeys(`ops:${OPS},bot:${SUBMITTER}:submit`),
    metricsScope: 'operate',
    docsScope: 'open',
  });
  assert.equal(await operatorOf(app, { headers: { authorization: `Bearer ${OPS}` } }), true);
  assert.equal(await operatorOf(app, { headers: { authorization: `Bearer ${SUBMITTER}` } }), false);
  await app.close();
});

test('without keys: loopback peers are operators, remote peers (whatever header) are not', async () => {
  const app = await buildApp();
  assert.equal(await operatorOf(app, {}), true);
  assert.equal(
    await operatorOf(app, {
      remoteAddress: '203.0.113.9',
      headers: { 'edge-connecting-ip': '127.0.0.1' },
    }),
    false,
  );
  // An open route knows its caller too: loopback holds operate, a remote peer does not.
  assert.equal((await app.inject('/public')).json().operator, true);
  assert.equal(
    (await app.inject({ url: '/public', remoteAddress: '203.0.113.9' })).json().operator,
    false,
  );
  await app.close();
});

test('an open route answers everyone and knows an operator by a valid key', async () => {
  const app = await buildApp({
    keys: parseApiKeys(`ops:${OPS},bot:${SUBMITTER}:submit`),
    metricsScope: 'operate',
    docsScope: 'open',
  });
  const open = (authorization?: string) =>
    app.inject({ url: '/public', ...(authorization ? { headers: { authorization } } : {}) });
  assert.equal((await open()).json().operator, false);
  assert.equal((await open('Bearer not-a-key-at-all-000')).statusCode, 200);
  assert.equal((await open('Bearer not-a-key-at-all-000')).json().operator, false);
  assert.equal((await open(`Bearer ${SUBMITTER}`)).json().operator, false);
  assert.equal((await open(`Bearer ${OPS}`)).json().operator, true);
  await app.close();
});
