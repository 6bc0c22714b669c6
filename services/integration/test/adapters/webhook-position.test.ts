/**
 * The webhook target's stored position does not decide what is a duplicate; its delivered
 * recordIds do (and, below the offset from which it keeps them, the position). Found for
 * the relational target by the chaos run (seed 22, README fix 7): after a NATS power loss
 * a new record took the offset of a lost one the consumer had already read past, the next
 * batch stored a position above it, and the re-read after the loss skipped it as covered.
 * Against a real local receiver, in both body modes.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TargetEvent } from '../../src/adapters/runtime/adapter-target.js';
import { createWebhookTarget } from '../../src/adapters/webhook/webhook-target.js';
import { uniqueName } from '../helpers/broker-drivers.js';
import { internUpdated, INTERNS } from '../helpers/records.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

describe('webhook target: offsets in the target after a broker lost its tail', () => {
  let receiver: WebhookReceiver;
  let stateDir: string;
  before(async () => {
    receiver = await startWebhookReceiver();
    stateDir = await mkdtemp(join(tmpdir(), 'webhook-position-'));
  });
  after(async () => {
    await receiver?.close();
    await rm(stateDir, { recursive: true, force: true });
  });

  const postedIds = (path: string) =>
    receiver.deliveries
      .filter((d) => d.path === path)
      .flatMap((d) => {
        const body = JSON.parse(d.body) as { recordId: string } | Array<{ recordId: string }>;
        return Array.isArray(body) ? body.map((e) => e.recordId) : [body.recordId];
      });

  for (const mode of ['one body per record', 'array bodies'] as const) {
    it(`${mode}: delivers a record at an offset below the stored position that it never delivered`, async () => {
      const target = createWebhookTarget({ stateDir, outbound: { allowed: ['127.0.0.1'] } });
      const path = `/${uniqueName('hook')}`;
      const attachment = {
        attachmentId: uniqueName('att'),
        contractId: INTERNS.contractId,
        adapterType: 'webhook',
        config: {
          url: `${receiver.url}${path}`,
          authType: 'bearer',
          token: 't',
          ...(mode === 'array bodies' ? { batch: { maxRecords: 10 } } : {}),
        },
        enabled: true,
        contract: INTERNS,
      };
      const mapping = await target.resolveMapping(attachment);
      const slot = { consumerGroup: 'adapter.webhook', topic: 'interns.updated', partition: 0 };
      const update = (offset: number, publishedAt: number): TargetEvent => ({
        envelope: { ...internUpdated(uniqueName('k')), legacyFlat: false },
        lifecycle: INTERNS.lifecycle['intern.updated']!,
        attachment,
        position: { ...slot, offset, publishedAt },
      });
      // Delivered before the power loss: L at offset 0 (position 1).
      const lost = update(0, 1000);
      assert.deepEqual(await target.writeBatch!(mapping, [lost]), ['written']);
      // The broker lost L; a new record N took offset 0, but the consumer had read past it
      // and delivered b and c (offsets 1, 2): position 3, ending with c's very publish.
      const [fresh, b, c] = [update(0, 2000), update(1, 2001), update(2, 2002)];
      assert.deepEqual(await target.writeBatch!(mapping, [b, c]), ['written', 'written']);
      // Re-read from 0 once the loss was found: N is new, b and c are not.
      assert.deepEqual(await target.writeBatch!(mapping, [fresh, b, c]), [
        'written',
        'duplicate',
        'duplicate',
      ]);
      assert.equal(await target.isDuplicate(mapping, fresh), true);
      assert.deepEqual(
        postedIds(path).sort(),
        [lost, fresh, b, c].map((e) => e.envelope.recordId).sort(),
        'each record delivered once',
      );
      await target.close?.();
    });
  }
});
