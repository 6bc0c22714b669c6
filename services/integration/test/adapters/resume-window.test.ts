/**
 * Offsets in the target at a restart: the consumer resumes at the target's stored
 * position only when the target applied every record the broker holds below it. After a
 * NATS power loss a new record can take a lost offset the consumer had already read past,
 * and the next batch stores a position above it that still ends with a record the broker
 * holds; a restart in that window resumed past the new record, and it was never
 * delivered (chaos/FINDINGS.md, fix 7 and after). Here the window is made on the embedded
 * SQL log with the csv adapter: its journal loses the entry of the partition's first
 * record (the target never saw the record now at that offset) and the group's committed
 * offset goes back below it, as the broker's rewind after lost records leaves it.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseCsv } from '@platform/core';
import { buildCsvAdapter } from '../../src/adapters/csv/build-csv-adapter.js';
import { stateDirFor } from '../../src/adapters/csv/csv-config.js';
import type { Adapter } from '../../src/adapters/runtime/build-adapter.js';
import type { PublishResult } from '../../src/broker/broker.js';
import { startHarness, type Harness } from '../helpers/adapter-harness.js';
import { BROKER_DRIVERS, uniqueName, waitFor } from '../helpers/broker-drivers.js';
import { internCreated, INTERNS, type TestEnvelope } from '../helpers/records.js';

describe('csv adapter on the SQL log: resume below the stored position', () => {
  let harness: Harness;
  let baseDir: string;
  let adapter: Adapter;
  before(async () => {
    harness = await startHarness(BROKER_DRIVERS.find((d) => d.name === 'sql-log-pglite')!);
    baseDir = await mkdtemp(join(tmpdir(), 'resume-window-'));
  });
  after(async () => {
    await adapter?.stop();
    await harness?.cleanup();
    await rm(baseDir, { recursive: true, force: true });
  });

  const start = async () => {
    adapter = await buildCsvAdapter({ ...harness.adapterDeps(), baseDir });
    await adapter.start();
  };
  const handled = (...records: PublishResult[]) =>
    waitFor(
      `csv past ${records.length} record(s)`,
      async () => {
        const status = (
          await adapter.app.inject({ method: 'GET', url: '/admin/status' })
        ).json() as {
          assignments: Array<{ topic: string; partition: number; committedOffset: number }>;
        };
        return records.every((r) =>
          status.assignments.some(
            (a) =>
              a.topic === r.topic && a.partition === r.partition && a.committedOffset > r.offset,
          ),
        );
      },
      20_000,
    );
  const rowIds = async () =>
    parseCsv(await readFile(join(baseDir, 'interns.csv'), 'utf8').catch(() => ''))
      .slice(1)
      .map((row) => row[1]);

  it('reads again from the committed offset when a record below the position was never applied', async () => {
    const attachment = harness.controlPlane.attach(INTERNS, 'csv', {
      path: 'interns.csv',
      columns: ['intern_id', 'record_id', 'status'],
    });
    await start();
    // Three creates in one partition (keys until three hash to the same one).
    const byPartition = new Map<number, Array<{ envelope: TestEnvelope; at: PublishResult }>>();
    let same: Array<{ envelope: TestEnvelope; at: PublishResult }> = [];
    while (same.length < 3) {
      const envelope = { ...internCreated(uniqueName('resume')), revision: 1 };
      const at = await harness.publish(envelope);
      const list = [...(byPartition.get(at.partition) ?? []), { envelope, at }];
      byPartition.set(at.partition, list);
      same = list;
    }
    await handled(...[...byPartition.values()].flat().map((p) => p.at));
    const [first] = same;
    assert.ok((await rowIds()).includes(first!.envelope.recordId));

    await adapter.stop();
    // The target never saw the record now at the first offset: its journal entry goes.
    const journal = join(stateDirFor(baseDir, attachment.attachmentId), 'journal.jsonl');
    const lines = (await readFile(journal, 'utf8')).split('\n');
    await writeFile(
      journal,
      lines.filter((line) => !line.includes(first!.envelope.recordId)).join('\n'),
    );
    // The group's committed offset goes back below it (a crash between the target's
    // write and the broker's commit, or the broker's rewind after lost records).
    const rewinder = await harness.broker.subscribeBatches(
      { groupId: adapter.consumerGroup, topics: [] },
      async () => undefined,
    );
    await rewinder.seek(first!.at.topic, first!.at.partition, first!.at.offset);
    await rewinder.stop();

    await start();
    assert.ok(!(await rowIds()).includes(first!.envelope.recordId), 'gone from the target');
    const later = { ...internCreated(uniqueName('later')), revision: 1 };
    await handled(...same.map((p) => p.at), await harness.publish(later));
    await waitFor('the later record in the file', async () =>
      (await rowIds()).includes(later.recordId),
    );
    // Resumed at the committed offset, not the position: the record is applied again,
    // and the others of the window are duplicates (each in the file once).
    const ids = await rowIds();
    assert.equal(ids.filter((id) => id === first!.envelope.recordId).length, 1);
    for (const { envelope } of same.slice(1))
      assert.equal(ids.filter((id) => id === envelope.recordId).length, 1);
  });
});
