/**
 * An adapter that starts while the control plane is down consumes nothing (it cannot
 * know its attachments, and skipping would lose records), keeps retrying on its refresh
 * interval, and starts consuming — from the beginning of the log — once it answers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AdapterTarget } from '../../../src/adapters/runtime/adapter-target.js';
import { buildAdapter, type Adapter } from '../../../src/adapters/runtime/build-adapter.js';
import { BROKER_DRIVERS, waitFor } from '../../helpers/broker-drivers.js';
import { startHarness, type Harness } from '../../helpers/adapter-harness.js';
import { internCreated, INTERNS } from '../../helpers/records.js';

describe('control plane down at adapter start', () => {
  let harness: Harness;
  let adapter: Adapter;
  const written: string[] = [];
  const early = internCreated('early');
  const target: AdapterTarget<null, string> = {
    type: 'collector',
    description: 'Collects recordIds in memory.',
    configSchema: { type: 'object', properties: {} },
    resolveMapping: async () => null,
    isDuplicate: async (_m, e) => written.includes(e.envelope.recordId),
    transform: (_m, e) => e.envelope.recordId,
    write: async (_m, row) => (written.push(row), 'written'),
  };

  before(async () => {
    harness = await startHarness(BROKER_DRIVERS[0]!);
    harness.controlPlane.attach(INTERNS, 'collector', {});
    harness.controlPlane.unavailable = true;
    adapter = await buildAdapter({ ...harness.adapterDeps(), target });
  });
  after(async () => {
    await adapter?.stop();
    await harness?.cleanup();
  });

  it('waits for its attachments, then processes what was published meanwhile', async () => {
    await adapter.start();
    await harness.publish(early);
    // The adapter asked the control plane for its attachments and was refused: until
    // then it could not have processed anything, so this is the point to look.
    await waitFor('a refused attachment refresh', () =>
      /503/.test(adapter.runtime.status().lastRefreshError ?? ''),
    );
    const status = (await adapter.app.inject({ method: 'GET', url: '/admin/status' })).json();
    assert.equal(status.state, 'starting');
    assert.match(status.lastRefreshError, /503/);
    assert.equal(written.length, 0);
    harness.controlPlane.unavailable = false;
    await waitFor('record written', () => written.includes(early.recordId));
    assert.equal(adapter.runtime.status().state, 'running');
    assert.equal(adapter.runtime.status().lastRefreshError, null);
  });
});
