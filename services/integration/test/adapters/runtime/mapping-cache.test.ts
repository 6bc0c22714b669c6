/**
 * The record processor's mapping cache: a mapping resolved for an attachment whose config changed
 * while it was being resolved is used at most by the event that asked for it, never
 * cached for the events after the change.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { createAdapterMetrics } from '../../../src/adapters/runtime/adapter-metrics.js';
import type { AdapterTarget } from '../../../src/adapters/runtime/adapter-target.js';
import type { AttachmentView } from '../../../src/adapters/runtime/attachment.js';
import { AttachmentRegistry } from '../../../src/adapters/runtime/attachment-registry.js';
import { DEFAULT_RULES } from '../../../src/adapters/runtime/failures.js';
import { createRecordProcessor } from '../../../src/adapters/runtime/record-processor.js';
import { DEFAULT_RETRY_POLICY } from '../../../src/adapters/runtime/retry-policy.js';
import type { BrokerRecord } from '../../../src/broker/broker.js';
import { BROKER_DRIVERS, silentLogger, uniqueName } from '../../helpers/broker-drivers.js';
import { INTERNS, internCreated } from '../../helpers/records.js';

describe('record processor: mapping cache', () => {
  it('does not cache a mapping whose attachment changed while it was resolved', async () => {
    const open = await BROKER_DRIVERS[0]!.open();
    try {
      const attachment = (tag: string): AttachmentView => ({
        attachmentId: 'a-1',
        contractId: 'interns',
        adapterType: 'tagged',
        config: { tag },
        enabled: true,
        contract: INTERNS,
      });
      let releaseFirst!: () => void;
      const firstResolution = new Promise<void>((resolve) => (releaseFirst = resolve));
      let resolutions = 0;
      const written: string[] = [];
      const target: AdapterTarget<string, string> = {
        type: 'tagged',
        description: 'Writes the tag of the config its mapping was resolved from.',
        configSchema: { type: 'object', properties: {} },
        async resolveMapping(view) {
          resolutions += 1;
          if (resolutions === 1) await firstResolution;
          return String(view.config.tag);
        },
        isDuplicate: async () => false,
        transform: (mapping) => mapping,
        async write(_mapping, row) {
          written.push(row);
          return 'written';
        },
      };
      const registry = new AttachmentRegistry();
      registry.update([attachment('old')]);
      const handler = createRecordProcessor({
        target,
        registry,
        broker: open.broker,
        logger: silentLogger(),
        consumerGroup: 'adapter.tagged',
        retry: DEFAULT_RETRY_POLICY,
        metrics: createAdapterMetrics(new Registry(), 'tagged', () => []),
        rules: DEFAULT_RULES,
        isStopping: () => false,
      });
      const record = (offset: number): BrokerRecord => ({
        topic: 'interns.created',
        partition: 0,
        offset,
        key: `k${offset}`,
        value: Buffer.from(JSON.stringify(internCreated(uniqueName('cache')))),
        headers: {},
        timestamp: new Date(),
      });

      const first = handler.handle(record(0));
      await new Promise((resolve) => setImmediate(resolve));
      await handler.invalidate(registry.update([attachment('new')]));
      releaseFirst();
      await first;
      await handler.handle(record(1));
      assert.deepEqual(written, ['old', 'new'], 'the event after the change uses the new config');
    } finally {
      await open.cleanup();
    }
  });
});
