/**
 * The webhook's POST against a real local server when the process itself stalls: Node
 * runs expired timers before it reads sockets, so after a synchronous stall longer than a
 * timeout (a long PGlite statement, a starved process at high load) the timer fired
 * before the answer already waiting on the socket was read. The receiver had the
 * delivery, the adapter saw a timeout and sent it again (the soak's webhook duplicates).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { postJson } from '../../src/adapters/webhook/http-post.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

/** Holds the event loop, as a long synchronous statement does. */
function stall(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy: nothing else of the process runs meanwhile
  }
}

describe('webhook POST: timeouts after an event-loop stall', () => {
  let receiver: WebhookReceiver;
  const agent = new http.Agent({ keepAlive: true });
  before(async () => {
    receiver = await startWebhookReceiver();
    receiver.respond = (path) => {
      // The answer is written right after the stall, before the client's timer could run.
      if (path === '/stall-then-answer') stall(400);
      return path === '/hang' ? 'hang' : 200;
    };
  });
  after(async () => {
    agent.destroy();
    await receiver.close();
  });

  it('reads an answer that arrived during a stall longer than the read timeout (one delivery, 2xx)', async () => {
    const result = await postJson(
      new URL(`${receiver.url}/stall-then-answer`),
      '{}',
      { 'idempotency-key': 'stall-1' },
      { connectTimeoutMs: 3000, readTimeoutMs: 150 },
      agent,
    );
    assert.equal(result.status, 200);
    assert.equal(receiver.deliveries.filter((d) => d.path === '/stall-then-answer').length, 1);
  });

  it('still times out a receiver that does not answer', async () => {
    await assert.rejects(
      postJson(
        new URL(`${receiver.url}/hang`),
        '{}',
        { 'idempotency-key': 'hang-1' },
        { connectTimeoutMs: 3000, readTimeoutMs: 150 },
        agent,
      ),
      /read timeout after 150 ms/,
    );
  });
});
