/**
 * The submission service over every broker driver: a record is published keyed by its
 * natural key to the topic of its lifecycle class, as a valid envelope carrying the
 * trace id; PUT and DELETE publish update-style and tombstone envelopes; the read model
 * follows; with the broker down the answer is 503 and nothing is kept.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { skipReason } from '@platform/testing';
import type { BrokerRecord } from '../../src/broker/broker.js';
import type { Envelope } from '../../src/contracts/envelope.js';
import { selectedDrivers, waitFor } from '../helpers/broker-drivers.js';
import { internPayload, internsLike } from '../support/contracts.js';
import { json, openHarness, type Harness } from '../support/harness.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

for (const driver of selectedDrivers()) {
  const missing = await driver.missing();
  describe(
    `submission publishes: ${driver.name}`,
    { skip: skipReason(`${missing} (broker driver ${driver.name})`, !missing) },
    () => {
      let h: Harness;
      const contract = internsLike();
      const id = contract.contractId;
      let records: BrokerRecord[];
      before(async () => {
        h = await openHarness(driver, { separateAppDb: true });
        await h.register(contract);
        ({ records } = await h.collect([`${id}.created`, `${id}.updated`, `${id}.deleted`]));
      });
      after(async () => h?.close());

      const on = (topic: string, key: string) =>
        records.filter((r) => r.topic === `${id}.${topic}` && r.key === key);
      const envelopeOf = (record: BrokerRecord) =>
        JSON.parse(record.value.toString('utf8')) as Envelope;

      it('POST publishes a valid create envelope keyed by the natural key (202)', async () => {
        const payload = internPayload();
        const traceId = '6f1c1c1e-8a51-4b8e-9c43-0b7d1c0ad001';
        const response = await h.submission.inject({
          method: 'POST',
          url: `/contracts/${id}/records`,
          payload,
          headers: { 'x-trace-id': traceId },
        });
        assert.equal(response.statusCode, 202, response.body);
        const body = json<{ recordId: string; naturalKey: string; traceId: string }>(response);
        assert.match(body.recordId, UUID);
        assert.equal(body.naturalKey, payload.internId);
        assert.equal(body.traceId, traceId);
        assert.equal(response.headers['x-trace-id'], traceId);
        await waitFor('the create envelope', () => on('created', body.naturalKey).length === 1);
        const envelope = envelopeOf(on('created', body.naturalKey)[0]!);
        assert.deepEqual(
          { ...envelope, occurredAt: undefined },
          {
            recordId: body.recordId,
            contractId: id,
            recordType: 'intern.created',
            schemaVersion: 1,
            naturalKey: payload.internId,
            occurredAt: undefined,
            traceId,
            payload: { ...payload, status: 'ACTIVE' },
            revision: 1,
          },
        );
        assert.match(envelope.occurredAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        assert.equal(on('created', body.naturalKey)[0]!.headers.traceId, traceId);
        assert.equal(on('created', body.naturalKey)[0]!.headers.revision, '1');
      });

      it('PUT publishes an update-style envelope (new recordId, same naturalKey) and GET shows the new state', async () => {
        const payload = internPayload();
        const created = json<{ recordId: string }>(
          await h.submission.inject({ method: 'POST', url: `/contracts/${id}/records`, payload }),
        );
        const response = await h.submission.inject({
          method: 'PUT',
          url: `/contracts/${id}/records/${payload.internId}`,
          payload: { ...payload, status: 'COMPLETED' },
        });
        assert.equal(response.statusCode, 202, response.body);
        const updated = json<{ recordId: string }>(response);
        assert.notEqual(updated.recordId, created.recordId);
        await waitFor(
          'the update envelope',
          () => on('updated', payload.internId as string).length === 1,
        );
        const envelope = envelopeOf(on('updated', payload.internId as string)[0]!);
        assert.equal(envelope.recordType, 'intern.updated');
        assert.equal(envelope.recordId, updated.recordId);
        assert.equal(envelope.payload.status, 'COMPLETED');
        const read = json<{ record: { recordId: string; payload: Record<string, string> } }>(
          await h.submission.inject({ url: `/contracts/${id}/records/${payload.internId}` }),
        );
        assert.equal(read.record.recordId, updated.recordId);
        assert.equal(read.record.payload.status, 'COMPLETED');
      });

      it('DELETE publishes a tombstone with the minimal payload and the record leaves the listing', async () => {
        const payload = internPayload();
        await h.submission.inject({ method: 'POST', url: `/contracts/${id}/records`, payload });
        const response = await h.submission.inject({
          method: 'DELETE',
          url: `/contracts/${id}/records/${payload.internId}`,
        });
        assert.equal(response.statusCode, 202, response.body);
        await waitFor(
          'the tombstone',
          () => on('deleted', payload.internId as string).length === 1,
        );
        const envelope = envelopeOf(on('deleted', payload.internId as string)[0]!);
        assert.equal(envelope.recordType, 'intern.deleted');
        assert.deepEqual(envelope.payload, { internId: payload.internId });
        const list = json<{ records: Array<{ naturalKey: string }> }>(
          await h.submission.inject({ url: `/contracts/${id}/records?limit=1000` }),
        );
        assert.equal(
          list.records.some((r) => r.naturalKey === payload.internId),
          false,
        );
        assert.equal(
          (
            await h.submission.inject({
              method: 'DELETE',
              url: `/contracts/${id}/records/${payload.internId}`,
            })
          ).statusCode,
          404,
        );
      });

      it('publishes a natural key holding a line break or surrounding spaces exactly as it is (202)', async () => {
        // A NATS header holds neither (issue 11's review: this was a 503 on JetStream).
        for (const internId of [`I-${Date.now()}\r\nInjected: yes`, ` I-${Date.now()}\t`]) {
          const response = await h.submission.inject({
            method: 'POST',
            url: `/contracts/${id}/records`,
            payload: internPayload({ internId }),
          });
          assert.equal(response.statusCode, 202, response.body);
          assert.equal(json<{ naturalKey: string }>(response).naturalKey, internId);
          await waitFor('the create envelope', () => on('created', internId).length === 1);
          assert.equal(envelopeOf(on('created', internId)[0]!).naturalKey, internId);
        }
      });

      it('keeps the events of one key in order on one partition', async () => {
        const payload = internPayload();
        await h.submission.inject({ method: 'POST', url: `/contracts/${id}/records`, payload });
        for (const status of ['COMPLETED', 'WITHDRAWN', 'ACTIVE']) {
          await h.submission.inject({
            method: 'PUT',
            url: `/contracts/${id}/records/${payload.internId}`,
            payload: { ...payload, status },
          });
        }
        const key = payload.internId as string;
        await waitFor('three updates', () => on('updated', key).length === 3);
        const updates = on('updated', key);
        assert.deepEqual(
          updates.map((r) => envelopeOf(r).payload.status),
          ['COMPLETED', 'WITHDRAWN', 'ACTIVE'],
        );
        assert.equal(new Set(updates.map((r) => r.partition)).size, 1);
      });

      it('answers 503 with the broker down and keeps nothing (last: it breaks the broker)', async () => {
        const payload = internPayload();
        await h.breakBroker();
        const response = await h.submission.inject({
          method: 'POST',
          url: `/contracts/${id}/records`,
          payload,
        });
        assert.equal(response.statusCode, 503);
        assert.equal(
          json<{ detail: string }>(response).detail,
          'broker unavailable; nothing was published',
        );
        assert.equal(
          (await h.submission.inject({ url: `/contracts/${id}/records/${payload.internId}` }))
            .statusCode,
          404,
        );
        const contract2 = internsLike();
        const registered = await h.controlPlane.inject({
          method: 'POST',
          url: '/contracts',
          payload: contract2,
        });
        assert.equal(registered.statusCode, 503);
        assert.equal(
          (await h.controlPlane.inject({ url: `/contracts/${contract2.contractId}` })).statusCode,
          404,
        );
        const health = await h.submission.inject({ url: '/health' });
        assert.equal(health.statusCode, 503);
      });
    },
  );
}
