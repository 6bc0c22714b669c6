/**
 * Dead letters: the control plane's consumer group reads `platform.dlq` (spec 2.5
 * envelopes) into its table; the read API filters, groups and shows one entry without
 * removing anything; replay republishes the original envelope to the topic of its own
 * record type and contract and marks the entry replayed.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Consumer } from '../../src/broker/broker.js';
import { DEAD_LETTER_TOPIC } from '../../src/contracts/topics.js';
import { startDeadLetterConsumer } from '../../src/dead-letters/dead-letter-consumer.js';
import { silentLogger, waitFor } from '../helpers/broker-drivers.js';
import { createOnly, internPayload, internsLike } from '../support/contracts.js';
import { json, openHarness, type Harness } from '../support/harness.js';

type Entry = {
  id: string;
  contractId: string;
  errorType: string;
  failedAdapter: string;
  replayed: boolean;
  replayedAt: string | null;
  quarantinedAt: string;
  traceId: string | null;
  originalPayload: unknown;
};

describe('dead letters: read API and replay', () => {
  let h: Harness;
  let consumer: Consumer;
  const interns = internsLike();
  const orders = createOnly();
  const envelope = (overrides: Record<string, unknown> = {}) => ({
    recordId: randomUUID(),
    contractId: interns.contractId,
    recordType: 'intern.updated',
    schemaVersion: 1,
    naturalKey: 'I-dead-1',
    occurredAt: new Date().toISOString(),
    traceId: randomUUID(),
    payload: { ...internPayload(), internId: 'I-dead-1', status: 'COMPLETED' },
    ...overrides,
  });
  const deadLetter = (original: unknown, overrides: Record<string, unknown> = {}) => ({
    originalTopic: `${interns.contractId}.updated`,
    originalPartition: 1,
    originalOffset: 41,
    originalKey: 'I-dead-1',
    contractId: interns.contractId,
    originalPayload: original,
    errorType: 'RETRY_EXHAUSTED',
    errorMessage: 'connection refused',
    failedAdapter: 'adapter.relational',
    attemptCount: 3,
    quarantinedAt: new Date().toISOString(),
    replayed: false,
    replayedAt: null,
    ...overrides,
  });
  const originals = [envelope(), envelope({ naturalKey: 'I-dead-2' })];

  before(async () => {
    h = await openHarness();
    await h.register(interns);
    await h.register(orders);
    consumer = await startDeadLetterConsumer({
      db: h.db,
      broker: h.broker,
      logger: silentLogger(),
    });
    const publish = (body: unknown, key = 'I-dead-1') =>
      h.broker.publish(DEAD_LETTER_TOPIC.name, key, JSON.stringify(body));
    await publish(deadLetter(originals[0]));
    await publish(
      deadLetter(originals[1], {
        errorType: 'SCHEMA_VIOLATION',
        failedAdapter: 'adapter.csv',
        attemptCount: 1,
        originalKey: 'I-dead-2',
      }),
    );
    await publish(
      deadLetter('{not json', {
        errorType: 'SCHEMA_VIOLATION',
        failedAdapter: 'adapter.csv',
        attemptCount: 1,
        originalTopic: `${orders.contractId}.created`,
        contractId: orders.contractId,
      }),
    );
    await publish('this is not a dead letter');
    await waitFor(
      'three dead letters',
      async () =>
        json<{ total: number }>(await h.controlPlane.inject({ url: '/dead-letters' })).total === 3,
    );
  });
  after(async () => {
    await consumer?.stop();
    await h?.close();
  });

  const list = async (query = '') =>
    json<{ deadLetters: Entry[]; total: number }>(
      await h.controlPlane.inject({ url: `/dead-letters${query}` }),
    );

  it('lists dead letters with the fields of the dead-letter envelope and the trace id', async () => {
    const { deadLetters } = await list();
    const first = deadLetters.find(
      (d) => (d.originalPayload as { naturalKey?: string }).naturalKey === 'I-dead-1',
    )!;
    assert.equal(first.errorType, 'RETRY_EXHAUSTED');
    assert.equal(first.traceId, originals[0]!.traceId);
    assert.deepEqual(first.originalPayload, originals[0]);
    assert.equal(first.replayed, false);
    const broken = deadLetters.find((d) => d.contractId === orders.contractId)!;
    assert.equal(broken.originalPayload, '{not json');
  });

  it('filters by contract, error type, adapter and replayed state', async () => {
    assert.equal((await list(`?contractId=${interns.contractId}`)).total, 2);
    assert.equal((await list('?errorType=SCHEMA_VIOLATION')).total, 2);
    assert.equal((await list('?failedAdapter=adapter.relational')).total, 1);
    assert.equal(
      (await list(`?contractId=${orders.contractId}&errorType=RETRY_EXHAUSTED`)).total,
      0,
    );
    assert.equal(
      (await h.controlPlane.inject({ url: '/dead-letters?colour=red' })).statusCode,
      400,
    );
    assert.equal(
      (await h.controlPlane.inject({ url: '/dead-letters?offset=99999999999999999999' }))
        .statusCode,
      400,
    );
  });

  it('groups by contract, error type and adapter', async () => {
    const byType = json<{ groups: Array<{ errorType: string; count: number }> }>(
      await h.controlPlane.inject({ url: '/dead-letters?groupBy=errorType' }),
    );
    assert.deepEqual(
      byType.groups.map((g) => [g.errorType, g.count]),
      [
        ['SCHEMA_VIOLATION', 2],
        ['RETRY_EXHAUSTED', 1],
      ],
    );
    const both = json<{
      groups: Array<{ contractId: string; failedAdapter: string; count: number }>;
    }>(
      await h.controlPlane.inject({
        url: `/dead-letters?groupBy=contractId,failedAdapter&contractId=${interns.contractId}`,
      }),
    );
    assert.deepEqual(both.groups.map((g) => `${g.failedAdapter}:${g.count}`).sort(), [
      'adapter.csv:1',
      'adapter.relational:1',
    ]);
    assert.equal(
      (await h.controlPlane.inject({ url: '/dead-letters?groupBy=recordId' })).statusCode,
      400,
    );
  });

  it('shows one entry, non-destructively; 404 for unknown ids', async () => {
    const { deadLetters } = await list();
    const one = await h.controlPlane.inject({ url: `/dead-letters/${deadLetters[0]!.id}` });
    assert.equal(one.statusCode, 200);
    assert.equal(json<{ deadLetter: Entry }>(one).deadLetter.id, deadLetters[0]!.id);
    assert.equal((await list()).total, 3);
    assert.equal(
      (await h.controlPlane.inject({ url: `/dead-letters/${randomUUID()}` })).statusCode,
      404,
    );
    assert.equal(
      (await h.controlPlane.inject({ url: '/dead-letters/not-a-uuid' })).statusCode,
      404,
    );
  });

  it('replays to the topic of the envelope’s own record type and contract, keeps the entry, marks it replayed', async () => {
    const { records } = await h.collect([
      `${interns.contractId}.updated`,
      `${interns.contractId}.created`,
    ]);
    const entry = (await list('?failedAdapter=adapter.relational')).deadLetters[0]!;
    const response = await h.controlPlane.inject({
      method: 'POST',
      url: `/dead-letters/${entry.id}/replay`,
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = json<{ deadLetter: Entry; published: { topic: string } }>(response);
    assert.equal(body.published.topic, `${interns.contractId}.updated`);
    assert.equal(body.deadLetter.replayed, true);
    assert.ok(body.deadLetter.replayedAt && !Number.isNaN(Date.parse(body.deadLetter.replayedAt)));
    await waitFor('the replayed envelope', () => records.length === 1);
    assert.equal(records[0]!.key, 'I-dead-1');
    assert.deepEqual(JSON.parse(records[0]!.value.toString('utf8')), originals[0]);
    assert.equal((await list()).total, 3);
    assert.equal((await list('?replayed=true')).total, 1);
  });

  it('refuses to replay a message that is not an envelope (422) and unknown ids (404)', async () => {
    const broken = (await list(`?contractId=${orders.contractId}`)).deadLetters[0]!;
    const response = await h.controlPlane.inject({
      method: 'POST',
      url: `/dead-letters/${broken.id}/replay`,
    });
    assert.equal(response.statusCode, 422);
    assert.equal(
      (await h.controlPlane.inject({ method: 'GET', url: `/dead-letters/${broken.id}` })).json()
        .deadLetter.replayed,
      false,
    );
    assert.equal(
      (await h.controlPlane.inject({ method: 'POST', url: `/dead-letters/${randomUUID()}/replay` }))
        .statusCode,
      404,
    );
  });
  it('replays a filtered set in bulk: oldest first, within the limit, reporting what could not be replayed', async () => {
    const { records } = await h.collect([`${interns.contractId}.updated`]);
    const replay = (body: unknown) =>
      h.controlPlane.inject({
        method: 'POST',
        url: '/dead-letters/replay',
        payload: body as object,
      });
    const schemaViolations = (await list('?errorType=SCHEMA_VIOLATION&replayed=false')).deadLetters;
    assert.equal(schemaViolations.length, 2);
    const replayable = schemaViolations.find((d) => d.contractId === interns.contractId)!;
    const broken = schemaViolations.find((d) => d.contractId === orders.contractId)!;

    const first = await replay({ errorType: 'SCHEMA_VIOLATION' });
    assert.equal(first.statusCode, 200, first.body);
    const body = json<{
      matched: number;
      replayed: Array<{ id: string; topic: string }>;
      failed: Array<{ id: string; code: string; detail: string }>;
      notAttempted: string[];
    }>(first);
    assert.equal(body.matched, 2);
    assert.deepEqual(body.replayed, [
      { id: replayable.id, topic: `${interns.contractId}.updated` },
    ]);
    assert.deepEqual(
      body.failed.map((f) => [f.id, f.code]),
      [[broken.id, 'DEAD_LETTER_NOT_REPLAYABLE']],
    );
    assert.deepEqual(body.notAttempted, []);
    // (the topic also holds the single replay of the test before)
    const replayedI2 = () =>
      records
        .map((r) => JSON.parse(r.value.toString('utf8')) as { naturalKey: string })
        .filter((e) => e.naturalKey === 'I-dead-2');
    await waitFor('the envelope replayed in bulk', () => replayedI2().length === 1);
    assert.deepEqual(replayedI2()[0], originals[1]);
    assert.equal((await list('?errorType=SCHEMA_VIOLATION&replayed=true')).total, 1);

    // By default only entries not replayed yet: the same filter now selects the broken one only.
    const again = json<{ matched: number; replayed: unknown[] }>(
      await replay({ errorType: 'SCHEMA_VIOLATION' }),
    );
    assert.equal(again.matched, 1);
    assert.equal(again.replayed.length, 0);

    // Already replayed entries on request, at most `limit` of them, oldest first.
    const limited = json<{ matched: number; replayed: Array<{ id: string }> }>(
      await replay({ contractId: interns.contractId, replayed: true, limit: 1 }),
    );
    assert.equal(limited.matched, 2);
    assert.equal(limited.replayed.length, 1);
    const replayedEntries = (await list(`?contractId=${interns.contractId}&replayed=true`))
      .deadLetters;
    const oldest = replayedEntries.reduce((a, b) => (a.quarantinedAt <= b.quarantinedAt ? a : b));
    assert.equal(limited.replayed[0]!.id, oldest.id);
  });

  it('refuses a bulk replay with a bad filter, naming it (400)', async () => {
    for (const [body, named] of [
      [{ errorType: 'OOPS' }, 'errorType'],
      [{ limit: 0 }, 'limit'],
      [{ limit: 1001 }, 'limit'],
      [{ contractId: '' }, 'contractId'],
      [{ colour: 'red' }, 'additional properties'],
      [{ replayed: 'maybe' }, 'replayed'],
    ] as const) {
      const response = await h.controlPlane.inject({
        method: 'POST',
        url: '/dead-letters/replay',
        payload: body,
      });
      assert.equal(response.statusCode, 400, JSON.stringify(body));
      assert.match(json<{ detail: string }>(response).detail, new RegExp(named));
    }
    const notJson = await h.controlPlane.inject({
      method: 'POST',
      url: '/dead-letters/replay',
      headers: { 'content-type': 'application/json' },
      payload: '[1,2',
    });
    assert.equal(notJson.statusCode, 400);
  });
});
