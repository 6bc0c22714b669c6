import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  createClientAddressResolver,
  createCounterStore,
  createRateLimiter,
  type CounterStore,
} from '@platform/core';
import { redisUrlForTests, skipReason } from '@platform/testing';
import type { FastifyInstance } from 'fastify';
import { buildAnalyticsApp } from '../../src/app.js';
import {
  createWarehouseFixture,
  silentLogger,
  type WarehouseFixture,
} from '../helpers/warehouse-fixture.js';

const redisUrl = await redisUrlForTests();
/** Counters pinned one second into a minute: the window cannot end mid-test when a minute turns. */
const pinnedMs = Math.floor(Date.now() / 60_000) * 60_000 + 1000;
const now = () => pinnedMs;
const STORES: Array<{ name: string; skip?: string; open: () => CounterStore }> = [
  { name: 'memory counters', open: () => createCounterStore({ now }) },
  {
    name: 'Redis counters',
    skip: skipReason('Redis', redisUrl !== undefined),
    open: () =>
      createCounterStore({
        redisUrl: redisUrl!,
        keyPrefix: `analytics-test-${randomUUID()}:`,
        now,
      }),
  },
];

describe('chat rate limit', () => {
  let fixture: WarehouseFixture;
  before(async () => {
    fixture = await createWarehouseFixture();
  });
  after(async () => fixture.cleanup());

  for (const store of STORES) {
    describe(store.name, { skip: store.skip }, () => {
      let counters: CounterStore;
      let app: FastifyInstance;
      before(async () => {
        counters = store.open();
        app = await buildAnalyticsApp({
          warehouse: fixture.warehouse,
          logger: silentLogger(),
          agentRateLimit: {
            limiter: createRateLimiter(counters, {
              limit: 2,
              windowSeconds: 60,
              name: 'agent-chat',
            }),
            clientAddress: createClientAddressResolver({ trustedProxies: undefined }),
          },
        });
      });
      after(async () => {
        await app.close();
        await counters.close();
      });

      const chat = (address: string) =>
        app.inject({
          method: 'POST',
          url: '/api/v1/agent/chat',
          headers: { 'edge-connecting-ip': address },
          payload: { message: 'total revenue' },
        });

      it('allows the limit per client address, then answers 429 with Retry-After', async () => {
        const first = await chat('203.0.113.7');
        assert.equal(first.statusCode, 200);
        assert.equal(first.headers['x-ratelimit-limit'], '2');
        assert.equal(first.headers['x-ratelimit-remaining'], '1');
        assert.equal((await chat('203.0.113.7')).statusCode, 200);
        const refused = await chat('203.0.113.7');
        assert.equal(refused.statusCode, 429);
        assert.equal(refused.json().detail, 'Too many chat requests; retry after 59 seconds');
        assert.equal(refused.headers['retry-after'], '59');
        assert.equal(
          (await chat('198.51.100.9')).statusCode,
          200,
          'another client has its own budget',
        );
      });
    });
  }
});
