/**
 * Everything an adapter test needs around one adapter: a broker (any driver), the
 * control-plane stand-in, the interns topics and `platform.dlq`, a collector of dead
 * letters (its own consumer group), and helpers to publish envelopes or raw bytes.
 */
import type { Broker, Consumer, PublishResult } from '../../src/broker/broker.js';
import { createControlPlaneClient } from '../../src/adapters/runtime/control-plane-client.js';
import type { AdapterDeps } from '../../src/adapters/runtime/build-adapter.js';
import type { DeadLetter } from '../../src/adapters/runtime/dead-letter.js';
import { silentLogger, type BrokerDriverCase, type OpenBroker } from './broker-drivers.js';
import { startControlPlaneStandIn, type ControlPlaneStandIn } from './control-plane-stand-in.js';
import { topicOf, type TestEnvelope } from './records.js';

export interface Harness extends OpenBroker {
  controlPlane: ControlPlaneStandIn;
  deadLetters: DeadLetter[];
  /** Deps for `build…Adapter` with fast refresh and retries. */
  adapterDeps(overrides?: Partial<AdapterDeps>): AdapterDeps;
  /** Publishes an envelope to its topic; resolves with where the broker put it. */
  publish(envelope: TestEnvelope): Promise<PublishResult>;
  publishRaw(topic: string, key: string, value: string | Buffer): Promise<void>;
  cleanup(): Promise<void>;
}

export const HARNESS_TOPICS = [
  'interns.created',
  'interns.updated',
  'interns.deleted',
  'intern.created',
];

export async function startHarness(
  driver: BrokerDriverCase,
  extraTopics: string[] = [],
): Promise<Harness> {
  const open = await driver.open();
  const broker: Broker = open.broker;
  for (const name of [...HARNESS_TOPICS, ...extraTopics])
    await broker.ensureTopic({ name, partitions: 3 });
  await broker.ensureTopic({ name: 'platform.dlq', partitions: 1 });
  const controlPlane = await startControlPlaneStandIn();
  const deadLetters: DeadLetter[] = [];
  const dlqConsumer: Consumer = await broker.subscribe(
    { groupId: 'test.dlq-collector', topics: ['platform.dlq'] },
    async (record) => {
      deadLetters.push(JSON.parse(record.value.toString()) as DeadLetter);
    },
  );
  return {
    ...open,
    controlPlane,
    deadLetters,
    adapterDeps: (overrides = {}) => ({
      broker,
      logger: silentLogger(),
      attachments: createControlPlaneClient({ baseUrl: controlPlane.url, timeoutMs: 2000 }),
      refreshIntervalMs: 200,
      retry: { maxAttempts: 3, initialBackoffMs: 20, maxBackoffMs: 100 },
      ...overrides,
    }),
    publish(envelope) {
      return broker.publish(topicOf(envelope), envelope.naturalKey, JSON.stringify(envelope), {
        traceId: envelope.traceId,
      });
    },
    async publishRaw(topic, key, value) {
      await broker.publish(topic, key, value);
    },
    async cleanup() {
      await dlqConsumer.stop();
      await controlPlane.close();
      await open.cleanup();
    },
  };
}
