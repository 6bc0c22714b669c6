/**
 * Issue 7, rule 6: a new adapter type is a new process that registers itself. Here a
 * fourth type ("ledger", appending JSON lines to a file) is built in this test process
 * from the adapter runtime alone; it registers with the running control plane, is
 * attached over HTTP, and receives the records submitted afterwards — with no change to
 * the submission service, the control plane or the other adapters.
 */
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { controlPlaneClient, submissionClient } from '@platform/client';
import { createSqlDatabase, type SqlDatabase } from '@platform/core';
import type { AdapterTarget } from '../../src/adapters/runtime/adapter-target.js';
import { buildAdapter, type Adapter } from '../../src/adapters/runtime/build-adapter.js';
import { createControlPlaneClient } from '../../src/adapters/runtime/control-plane-client.js';
import { startPlatform, type RunningPlatform } from '../../src/platform.js';
import { silentLogger, waitFor } from '../helpers/broker-drivers.js';
import { internPayload, internsLike } from '../support/contracts.js';
import { platformEnv } from '../support/platform-env.js';

function ledgerTarget(dir: string): AdapterTarget<{ file: string }, string> {
  const written = new Set<string>();
  return {
    type: 'ledger',
    description: 'Appends every event as one JSON line to a ledger file.',
    configSchema: {
      type: 'object',
      required: ['file'],
      additionalProperties: false,
      properties: {
        file: {
          type: 'string',
          pattern: '^[a-z0-9-]+\\.jsonl$',
          description: 'Ledger file name (lower-case, .jsonl).',
        },
      },
    },
    async resolveMapping(attachment) {
      return { file: join(dir, String(attachment.config.file)) };
    },
    async isDuplicate(_mapping, event) {
      return written.has(event.envelope.recordId);
    },
    transform(_mapping, event) {
      return `${JSON.stringify({ recordId: event.envelope.recordId, contractId: event.envelope.contractId, lifecycle: event.lifecycle, payload: event.envelope.payload })}\n`;
    },
    async write(mapping, row, event) {
      await appendFile(mapping.file, row);
      written.add(event.envelope.recordId);
      return 'written';
    },
  };
}

describe('a fourth adapter type joins at runtime', () => {
  let platform: RunningPlatform;
  let db: SqlDatabase;
  let ledger: Adapter;
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ledger-'));
    db = await createSqlDatabase({ dataDir: 'memory://' });
    platform = await startPlatform({
      env: platformEnv({ INTEGRATION_ROLES: 'control-plane,submission', DATA_DIR: dir }),
      logger: silentLogger(),
      db,
    });
  });
  after(async () => {
    await ledger?.stop();
    await platform?.close();
    await db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('registers itself, is attached, and receives records without any other change', async () => {
    const controlPlane = platform.urls['control-plane']!;
    const submission = platform.urls.submission!;
    // The HTTP calls are a client's, through @platform/client (issue 22 item 4).
    const control = controlPlaneClient({ baseUrl: controlPlane });
    const contract = internsLike();
    const registered = await control.POST('/contracts', { body: { ...contract } });
    assert.equal(registered.response.status, 201, JSON.stringify(registered.error));

    ledger = await buildAdapter({
      target: ledgerTarget(dir),
      broker: platform.broker,
      logger: silentLogger(),
      attachments: createControlPlaneClient({ baseUrl: controlPlane }),
      refreshIntervalMs: 200,
    });
    await ledger.start();
    const types = await control.GET('/adapter-types');
    assert.equal(types.response.status, 200);
    assert.deepEqual(
      types.data!.adapterTypes.map((t) => [t.type, t.live, t.consumerGroup]),
      [['ledger', true, 'adapter.ledger']],
    );

    const adapters = { params: { path: { contractId: contract.contractId } } };
    const refused = await control.POST('/contracts/{contractId}/adapters', {
      ...adapters,
      body: { adapterType: 'ledger', config: { file: 'Bad Name.txt' } },
    });
    assert.equal(refused.response.status, 400);
    assert.match(refused.error!.detail, /Ledger file name \(lower-case, \.jsonl\)/);
    const attached = await control.POST('/contracts/{contractId}/adapters', {
      ...adapters,
      body: { adapterType: 'ledger', config: { file: 'interns.jsonl' } },
    });
    assert.equal(attached.response.status, 201, JSON.stringify(attached.error));
    await ledger.runtime.refresh();

    const payload = internPayload();
    const submitted = await submissionClient({ baseUrl: submission }).POST(
      '/contracts/{contractId}/records',
      { ...adapters, body: payload },
    );
    assert.equal(submitted.response.status, 202, JSON.stringify(submitted.error));
    const { recordId } = submitted.data!;
    const file = join(dir, 'interns.jsonl');
    await waitFor(
      'the ledger line',
      async () => (await readFile(file, 'utf8').catch(() => '')).includes(recordId),
      20_000,
    );
    const lines = (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { recordId: string; payload: Record<string, string> });
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.payload.internId, payload.internId);
  });
});
