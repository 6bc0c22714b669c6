/** The test-time response check: what the document describes passes, anything else is a 500 naming it. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, FastifyReply } from 'fastify';
import {
  createHttpApp,
  createLogger,
  errorResponse,
  openApiPath,
  responseCheckEnabled,
} from '../../../src/index.js';

const logger = createLogger({ service: 'test', level: 'silent' });

describe('OpenAPI response check', () => {
  let app: FastifyInstance;
  before(async () => {
    app = await createHttpApp({ service: 'test', logger, responseCheck: true });
    app.get(
      '/things/:id',
      {
        config: { scope: 'read' },
        schema: {
          operationId: 'getThing',
          params: { type: 'object', properties: { id: { type: 'integer' } } },
          response: {
            200: {
              description: 'The thing.',
              type: 'object',
              required: ['id'],
              properties: { id: { type: 'integer' }, note: { type: 'string', nullable: true } },
            },
            404: errorResponse('No such thing.'),
          },
        },
      },
      async (request, reply: FastifyReply) => {
        const { id } = request.params as { id: number };
        if (id === 0) return reply.code(404).send({ detail: 'No such thing.', code: 'NOT_FOUND' });
        if (id === 1) return reply.code(409).send({ detail: 'Undeclared.' });
        // Sent as text, past Fastify's serializer (which would enforce the schema itself).
        if (id === 2)
          return reply.code(404).type('application/json').send('{"message":"not the error shape"}');
        if (id === 3) return reply.type('text/html').send('<p>html</p>');
        return { id, note: null };
      },
    );
    app.get('/undescribed', async () => ({ anything: true }));
    await app.ready();
  });
  after(async () => {
    await app.close();
    // The violations below marked the process failed on purpose; this file checks them.
    process.exitCode = undefined;
  });

  test('a response the document describes passes untouched', async () => {
    const ok = await app.inject({ url: '/things/7' });
    assert.equal(ok.statusCode, 200);
    assert.deepEqual(ok.json(), { id: 7, note: null });
    const missing = await app.inject({ url: '/things/0' });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().code, 'NOT_FOUND');
    const invalid = await app.inject({ url: '/things/x' });
    assert.equal(invalid.statusCode, 400, 'the standard validation answer is declared');
  });

  for (const [id, expected] of [
    ['1', 'answered 409, a status it does not declare'],
    ['2', 'body does not match its schema'],
    ['3', 'answered content type "text/html"'],
  ] as const) {
    test(`a response the document does not describe fails: ${expected}`, async () => {
      const response = await app.inject({ url: `/things/${id}` });
      assert.equal(response.statusCode, 500);
      assert.equal(response.headers['x-openapi-violation'], 'true');
      assert.match(response.json().detail, new RegExp(expected.replace(/[()]/g, '.')));
      assert.equal(process.exitCode, 1, 'the process is marked failed');
    });
  }

  test('a route that declares no success answer is not checked', async () => {
    const response = await app.inject({ url: '/undescribed' });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { anything: true });
    assert.equal(response.headers['x-openapi-violation'], undefined);
  });

  test('paths are written as @fastify/swagger writes them', () => {
    assert.equal(openApiPath('/a/:b/c::batch'), '/a/{b}/c:batch');
    assert.equal(openApiPath('/v1/jobs/:job_id/events'), '/v1/jobs/{job_id}/events');
  });

  test('on under node --test, off in production, forced by OPENAPI_RESPONSE_CHECK', () => {
    assert.equal(responseCheckEnabled({}), false);
    assert.equal(responseCheckEnabled({ OPENAPI_RESPONSE_CHECK: '1' }), true);
    assert.equal(responseCheckEnabled({ NODE_TEST_CONTEXT: 'child' }), true);
    assert.equal(
      responseCheckEnabled({ NODE_TEST_CONTEXT: 'child', OPENAPI_RESPONSE_CHECK: '0' }),
      false,
    );
  });
});
