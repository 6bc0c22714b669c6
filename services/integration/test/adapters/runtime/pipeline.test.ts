/**
 * The runtime with a target written for the test (any adapter type plugs in the same
 * way): bounded retries that succeed, unclassified failures, a paused adapter before its
 * topics exist, contract filter, traceId in every log line about a message.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import type { AdapterTarget } from '../../../src/adapters/runtime/adapter-target.js';
import { buildAdapter, type Adapter } from '../../../src/adapters/runtime/build-adapter.js';
import { BROKER_DRIVERS, uniqueName, waitFor } from '../../helpers/broker-drivers.js';
import { startHarness, type Harness } from '../../helpers/adapter-harness.js';
import { createOnlyContract, envelope, internCreated, INTERNS } from '../../helpers/records.js';

interface Behaviour {
  failures: Map<string, { times: number; error: () => Error }>;
  written: string[];
  attempts: Map<string, number>;
}

function scriptedTarget(behaviour: Behaviour): AdapterTarget<null, string> {
  return {
    type: 'scripted',
    description: 'Test target whose failures are scripted per naturalKey.',
    configSchema: { type: 'object', properties: {} },
    resolveMapping: async () => null,
    isDuplicate: async (_m, event) => behaviour.written.includes(event.envelope.recordId),
    transform: (_m, event) => event.envelope.recordId,
    async write(_m, row, event) {
      const key = event.envelope.naturalKey;
      behaviour.attempts.set(key, (behaviour.attempts.get(key) ?? 0) + 1);
      const failure = behaviour.failures.get(key);
      if (failure && failure.times > 0) {
        failure.times -= 1;
        throw failure.error();
      }
      behaviour.written.push(row);
      return 'written';
    },
  };
}

describe('adapter runtime', () => {
  let harness: Harness;
  let adapter: Adapter;
  const logLines: Array<Record<string, unknown>> = [];
  const behaviour: Behaviour = { failures: new Map(), written: [], attempts: new Map() };
  const later = createOnlyContract(uniqueName('later'));

  before(async () => {
    harness = await startHarness(BROKER_DRIVERS[0]!);
    harness.controlPlane.attach(INTERNS, 'scripted', {});
    harness.controlPlane.attach(later, 'scripted', {});
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean))
          logLines.push(JSON.parse(line));
        done();
      },
    });
    adapter = await buildAdapter({
      ...harness.adapterDeps({
        logger: pino({ level: 'debug' }, sink),
        retry: { maxAttempts: 4, initialBackoffMs: 10, maxBackoffMs: 40 },
      }),
      target: scriptedTarget(behaviour),
    });
    adapter.runtime.pause();
    await adapter.start();
  });
  after(async () => {
    await adapter?.stop();
    await harness?.cleanup();
  });

  it('reports paused once assigned when paused before its topics exist', async () => {
    const early = envelope(later.contractId, 'product.created', 'k', { sku: 'k', name: 'n' });
    let status = (await adapter.app.inject({ method: 'GET', url: '/admin/status' })).json();
    assert.equal(status.paused, true);
    assert.ok(
      !status.assignments.some((a: { topic: string }) => a.topic === `${later.contractId}.created`),
      'topic does not exist yet',
    );
    await harness.broker.ensureTopic({ name: `${later.contractId}.created`, partitions: 1 });
    await harness.publish(early);
    await waitFor('assignment', () =>
      adapter.runtime
        .status()
        .assignments.some((a) => a.topic === `${later.contractId}.created` && a.endOffset === 1),
    );
    status = (await adapter.app.inject({ method: 'GET', url: '/admin/status' })).json();
    assert.equal(status.paused, true);
    assert.equal(status.state, 'paused');
    assert.equal(behaviour.written.includes(early.recordId), false);
    await adapter.app.inject({ method: 'POST', url: '/admin/resume' });
    await waitFor('written after resume', () => behaviour.written.includes(early.recordId));
  });

  it('retries a retriable failure with backoff and commits after the write', async () => {
    const created = internCreated(uniqueName('transient'));
    const refused = () =>
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    behaviour.failures.set(created.naturalKey, { times: 2, error: refused });
    await harness.publish(created);
    await waitFor('written', () => behaviour.written.includes(created.recordId));
    assert.equal(behaviour.attempts.get(created.naturalKey), 3);
    assert.equal(harness.deadLetters.filter((d) => d.traceId === created.traceId).length, 0);
    const retryLogs = logLines.filter(
      (l) => l.msg === 'retriable failure; retrying' && l.recordId === created.recordId,
    );
    assert.equal(retryLogs.length, 2);
    assert.ok(retryLogs.every((l) => l.traceId === created.traceId && l.contractId === 'interns'));
  });

  it('dead-letters an unrecognized failure at once as UNCLASSIFIED_FAILURE', async () => {
    const created = internCreated(uniqueName('weird'));
    behaviour.failures.set(created.naturalKey, {
      times: 1,
      error: () => new RangeError('something odd'),
    });
    await harness.publish(created);
    await waitFor('dead letter', () =>
      harness.deadLetters.some((d) => d.traceId === created.traceId),
    );
    const letter = harness.deadLetters.find((d) => d.traceId === created.traceId)!;
    assert.equal(letter.errorType, 'UNCLASSIFIED_FAILURE');
    assert.equal(letter.attemptCount, 1);
    assert.equal(letter.failedAdapter, 'adapter.scripted');
    assert.equal(letter.errorMessage, 'something odd');
    assert.equal(behaviour.attempts.get(created.naturalKey), 1);
  });

  it('carries the traceId in every log line about a message', async () => {
    const created = internCreated(uniqueName('traced'));
    await harness.publish(created);
    await waitFor('written', () => behaviour.written.includes(created.recordId));
    await waitFor('log line', () => logLines.some((l) => l.recordId === created.recordId));
    const about = logLines.filter((l) => l.recordId === created.recordId);
    assert.ok(about.length >= 1);
    assert.ok(about.every((l) => l.traceId === created.traceId));
  });

  it('skips a contract with no attachment and commits it', async () => {
    const stranger = envelope(uniqueName('stranger'), 'x.created', 'k', {});
    // On a subscribed topic, but the envelope names a contract this adapter is not attached to.
    await harness.publishRaw('interns.created', 'k', JSON.stringify(stranger));
    const next = internCreated(uniqueName('next'));
    await harness.publish(next);
    await waitFor('next written', () => behaviour.written.includes(next.recordId));
    assert.equal(behaviour.written.includes(stranger.recordId), false);
    const metrics = (await adapter.app.inject({ method: 'GET', url: '/metrics' })).body;
    assert.match(
      metrics,
      new RegExp(
        `integration_adapter_records_total\\{[^}]*contract_id="${stranger.contractId}"[^}]*outcome="skipped"[^}]*\\} 1`,
      ),
    );
    assert.equal(
      harness.deadLetters.some((d) => d.contractId === stranger.contractId),
      false,
    );
  });
});
