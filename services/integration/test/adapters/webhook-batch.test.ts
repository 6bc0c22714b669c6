/**
 * The webhook's batch body (`batch` in the attachment config) against a real local HTTP
 * server: arrays of envelopes in log order within the record and byte bounds, a redelivered
 * batch not posted again, and a refused array (4xx) retried record by record so only the
 * record the receiver refuses on its own is dead-lettered — on both broker drivers.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { skipReason } from '@platform/testing';
import type { TargetEvent } from '../../src/adapters/runtime/adapter-target.js';
import type { Adapter } from '../../src/adapters/runtime/build-adapter.js';
import { PermanentDeliveryError } from '../../src/adapters/runtime/failures.js';
import { buildWebhookAdapter } from '../../src/adapters/webhook/build-webhook-adapter.js';
import { createWebhookTarget } from '../../src/adapters/webhook/webhook-target.js';
import { startHarness, type Harness } from '../helpers/adapter-harness.js';
import { BROKER_DRIVERS, uniqueName, waitFor } from '../helpers/broker-drivers.js';
import {
  internCreated,
  internDeleted,
  internUpdated,
  INTERNS,
  type TestEnvelope,
} from '../helpers/records.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const POISON = 'POISON-for-the-receiver';
/** The receiver refuses (422) any body carrying the poison record, as a validating endpoint would. */
const refusePoison = (_path: string, _count: number, body: string) =>
  body.includes(POISON) ? 422 : 200;
const ids = (body: string) =>
  (JSON.parse(body) as Array<{ recordId: string }>).map((envelope) => envelope.recordId);

describe('webhook target: batch body', () => {
  let receiver: WebhookReceiver;
  let stateDir: string;
  let target: ReturnType<typeof createWebhookTarget>;
  before(async () => {
    receiver = await startWebhookReceiver();
    receiver.respond = refusePoison;
    stateDir = await mkdtemp(join(tmpdir(), 'webhook-batch-'));
    target = createWebhookTarget({ stateDir, outbound: { allowed: ['127.0.0.1'] } });
  });
  after(async () => {
    await target?.close?.();
    await receiver?.close();
    await rm(stateDir, { recursive: true, force: true });
  });

  const attachmentOf = (path: string, batch: Record<string, unknown>) => ({
    attachmentId: uniqueName('att'),
    contractId: INTERNS.contractId,
    adapterType: 'webhook',
    config: { url: `${receiver.url}${path}`, authType: 'bearer', token: 't', batch },
    enabled: true,
    contract: INTERNS,
  });
  const eventsOf = (
    attachment: ReturnType<typeof attachmentOf>,
    envelopes: TestEnvelope[],
  ): TargetEvent[] =>
    envelopes.map((envelope, offset) => ({
      envelope: { ...envelope, legacyFlat: false },
      lifecycle: INTERNS.lifecycle[envelope.recordType]!,
      attachment,
      position: { consumerGroup: 'adapter.webhook', topic: 't', partition: 0, offset },
    }));

  it('posts arrays in log order within maxRecords; the same batch again is not posted', async () => {
    const a = uniqueName('a');
    const b = uniqueName('b');
    const envelopes = [
      internCreated(a),
      internCreated(b),
      internUpdated(a, { status: 'LEFT' }),
      internUpdated(b),
      internDeleted(a),
    ];
    const attachment = attachmentOf('/array', { maxRecords: 2 });
    const mapping = await target.resolveMapping(attachment);
    const events = eventsOf(attachment, envelopes);
    assert.deepEqual(await target.writeBatch!(mapping, events), Array(5).fill('written'));
    const posted = receiver.deliveries.filter((d) => d.path === '/array');
    assert.deepEqual(
      posted.map((d) => ids(d.body)),
      [
        [envelopes[0]!.recordId, envelopes[1]!.recordId],
        [envelopes[2]!.recordId, envelopes[3]!.recordId],
        [envelopes[4]!.recordId],
      ],
    );
    assert.deepEqual(JSON.parse(posted[0]!.body)[0], envelopes[0]);
    // One envelope: named by its recordId; several: by a digest of theirs.
    assert.equal(posted[2]!.headers['idempotency-key'], envelopes[4]!.recordId);
    assert.match(String(posted[0]!.headers['idempotency-key']), /^batch-[0-9a-f]{32}$/);
    assert.notEqual(posted[0]!.headers['idempotency-key'], posted[1]!.headers['idempotency-key']);
    assert.deepEqual(await target.writeBatch!(mapping, events), Array(5).fill('duplicate'));
    assert.equal(receiver.deliveries.filter((d) => d.path === '/array').length, 3);
  });

  it('keeps each body within maxBytes, and sends a record retried alone as an array of one', async () => {
    const envelopes = Array.from({ length: 7 }, () => internCreated(uniqueName('bytes')));
    const attachment = attachmentOf('/bytes', { maxBytes: 1024 });
    const mapping = await target.resolveMapping(attachment);
    await target.writeBatch!(mapping, eventsOf(attachment, envelopes));
    const posted = receiver.deliveries.filter((d) => d.path === '/bytes');
    assert.ok(posted.length > 1, `split into ${posted.length} bodies`);
    for (const d of posted) assert.ok(Buffer.byteLength(d.body) <= 1024, `${d.body.length} bytes`);
    assert.deepEqual(
      posted.flatMap((d) => ids(d.body)),
      envelopes.map((e) => e.recordId),
    );
    const alone = internCreated(uniqueName('alone'));
    const [event] = eventsOf(attachment, [alone]);
    delete event!.position;
    assert.equal(await target.write(mapping, target.transform(mapping, event!), event!), 'written');
    assert.deepEqual(JSON.parse(receiver.deliveries.at(-1)!.body), [alone]);
  });

  it('a refused array throws the receiver status; what was posted before it stays delivered', async () => {
    const good = internCreated(uniqueName('good'));
    const poison = internCreated(uniqueName('poison'), { lastName: POISON });
    const attachment = attachmentOf('/refuse', { maxRecords: 1 });
    const mapping = await target.resolveMapping(attachment);
    const events = eventsOf(attachment, [good, poison]);
    await assert.rejects(target.writeBatch!(mapping, events), (error: unknown) => {
      assert.ok(error instanceof PermanentDeliveryError);
      assert.equal(error.status, 422);
      return true;
    });
    assert.equal(await target.isDuplicate(mapping, events[0]!), true, 'the first was delivered');
    assert.equal(await target.isDuplicate(mapping, events[1]!), false);
  });

  it('refuses a batch config out of bounds', async () => {
    await assert.rejects(
      target.resolveMapping(attachmentOf('/x', { maxRecords: 5000 })),
      /batch\.maxRecords must be an integer from 1 to 1000/,
    );
  });
});

for (const name of ['sql-log-pglite', 'jetstream']) {
  const driver = BROKER_DRIVERS.find((d) => d.name === name)!;
  const missing = await driver.missing();
  describe(
    `webhook adapter, batch body: ${name}`,
    { skip: skipReason(`${missing} (webhook batch tests)`, !missing) },
    () => {
      let harness: Harness;
      let adapter: Adapter;
      let receiver: WebhookReceiver;
      let stateDir: string;
      before(async () => {
        stateDir = await mkdtemp(join(tmpdir(), 'webhook-batch-adapter-'));
        receiver = await startWebhookReceiver();
        receiver.respond = refusePoison;
        harness = await startHarness(driver);
        harness.controlPlane.attach(INTERNS, 'webhook', {
          url: `${receiver.url}/batch`,
          authType: 'bearer',
          token: 't',
          batch: { maxRecords: 50 },
        });
        adapter = await buildWebhookAdapter({
          ...harness.adapterDeps(),
          stateDir,
          allowedOutbound: ['127.0.0.1'],
        });
        await adapter.start();
      });
      after(async () => {
        await adapter?.stop();
        await harness?.cleanup();
        await receiver?.close();
        await rm(stateDir, { recursive: true, force: true });
      });

      it('delivers every record once, each key in order; a refused array dead-letters only the refused record', async () => {
        const keys = [uniqueName('k'), uniqueName('k'), uniqueName('k')];
        const published: TestEnvelope[] = [];
        for (const key of keys) published.push(internCreated(key));
        for (let round = 0; round < 3; round += 1)
          for (const key of keys) published.push(internUpdated(key, { mentor: `m${round}` }));
        const poison = internUpdated(keys[1]!, { lastName: POISON });
        published.push(poison);
        for (const key of keys) published.push(internUpdated(key, { mentor: 'last' }));
        // One after another: the log holds them in this order (per key, the order to keep).
        for (const envelope of published) await harness.publish(envelope);
        const good = published.filter((e) => e !== poison);
        const accepted = () =>
          receiver.deliveries
            .filter((d) => d.path === '/batch' && !d.body.includes(POISON))
            .flatMap((d) => ids(d.body));
        await waitFor(
          'every good record delivered and the poison dead-lettered',
          () =>
            good.every((e) => accepted().includes(e.recordId)) &&
            harness.deadLetters.some((d) => d.traceId === poison.traceId),
          20_000,
        );
        const delivered = accepted();
        for (const e of good)
          assert.equal(delivered.filter((id) => id === e.recordId).length, 1, 'delivered once');
        assert.equal(delivered.includes(poison.recordId), false);
        // The updated topic's events of each key arrive in the order they were published.
        for (const key of keys) {
          const updates = good
            .filter((e) => e.naturalKey === key && e.recordType === 'intern.updated')
            .map((e) => e.recordId);
          assert.deepEqual(
            delivered.filter((id) => updates.includes(id)),
            updates,
          );
        }
        const letter = harness.deadLetters.find((d) => d.traceId === poison.traceId)!;
        assert.equal(letter.errorType, 'UNMAPPABLE_DATA');
        assert.match(letter.errorMessage, /answered 422/);
        assert.equal(harness.deadLetters.filter((d) => d.traceId !== poison.traceId).length, 0);
        assert.ok(
          receiver.deliveries
            .filter((d) => d.path === '/batch')
            .every((d) => d.body.startsWith('[')),
          'every body is an array',
        );
      });
    },
  );
}
