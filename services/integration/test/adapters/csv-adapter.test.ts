/**
 * The CSV adapter: RFC 4180 lines in the attachment's column order, header once (also
 * after a restart), dedup of creates across restarts, atomic rebuilds for updates and
 * tombstones, one writer per file, paths kept inside the data folder, a disabled
 * attachment skipped. What every adapter does (redelivery, stale updates, tombstones,
 * poison messages, the flat form, a new contract version) is in adapter-conformance.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { skipReason } from '@platform/testing';
import { buildCsvAdapter } from '../../src/adapters/csv/build-csv-adapter.js';
import { parseCsv } from '@platform/core';
import type { Adapter } from '../../src/adapters/runtime/build-adapter.js';
import { BROKER_DRIVERS, uniqueName, waitFor } from '../helpers/broker-drivers.js';
import { startHarness, type Harness } from '../helpers/adapter-harness.js';
import {
  createOnlyContract,
  envelope,
  internCreated,
  internDeleted,
  internUpdated,
  INTERNS,
} from '../helpers/records.js';

const COLUMNS = ['intern_id', 'record_id', 'last_name', 'college', 'status', 'created_at'];

for (const name of ['sql-log-pglite', 'jetstream']) {
  const driver = BROKER_DRIVERS.find((d) => d.name === name)!;
  const missing = await driver.missing();
  describe(
    `csv adapter: ${name}`,
    { skip: skipReason(`${missing} (csv adapter tests)`, !missing) },
    () => {
      let harness: Harness;
      let adapter: Adapter;
      let baseDir: string;
      const products = createOnlyContract(uniqueName('products'));
      const file = () => join(baseDir, 'out', 'interns.csv');
      const lines = async () => parseCsv(await readFile(file(), 'utf8').catch(() => ''));
      const start = async () => {
        adapter = await buildCsvAdapter({ ...harness.adapterDeps(), baseDir });
        await adapter.start();
      };

      before(async () => {
        baseDir = await mkdtemp(join(tmpdir(), 'csv-adapter-'));
        harness = await startHarness(driver, [`${products.contractId}.created`]);
        harness.controlPlane.attach(INTERNS, 'csv', { path: 'out/interns.csv', columns: COLUMNS });
        harness.controlPlane.attach(products, 'csv', { path: 'products.csv' }, false);
        await start();
      });
      after(async () => {
        await adapter?.stop();
        await harness?.cleanup();
        await rm(baseDir, { recursive: true, force: true });
      });

      it('appends RFC 4180 lines in the attachment column order under one header', async () => {
        const a = internCreated(uniqueName('a'));
        const b = internCreated(uniqueName('b'), {
          lastName: 'Hopper\nGrace',
          college: 'Yale "Old Blue", CT',
        });
        await harness.publish(a);
        await harness.publish(b);
        await waitFor('two lines', async () => (await lines()).length === 3);
        const text = await readFile(file(), 'utf8');
        assert.ok(text.startsWith(`${COLUMNS.join(',')}\r\n`), 'header first, CRLF line ends');
        assert.ok(text.includes('"Yale ""Old Blue"", CT"'), 'quotes doubled and the field quoted');
        const rows = await lines();
        const rowB = rows.find((row) => row[1] === b.recordId)!;
        assert.deepEqual(rowB, [
          b.naturalKey,
          b.recordId,
          'Hopper\nGrace',
          'Yale "Old Blue", CT',
          'ACTIVE',
          b.occurredAt,
        ]);
        const listed = (await adapter.app.inject({ method: 'GET', url: '/interns' })).json()
          .interns;
        assert.ok(
          listed.some(
            (row: Record<string, string>) =>
              row.record_id === a.recordId && row.last_name === 'Lovelace, Countess',
          ),
        );
      });

      it('writes a redelivered create once, also after a restart, and never repeats the header', async () => {
        const c = internCreated(uniqueName('c'));
        await harness.publish(c);
        await harness.publish(c);
        await waitFor('line', async () => (await lines()).some((row) => row[1] === c.recordId));
        await adapter.stop();
        await start();
        await harness.publish(c);
        const d = internCreated(uniqueName('d'));
        await harness.publish(d);
        await waitFor('line after restart', async () =>
          (await lines()).some((row) => row[1] === d.recordId),
        );
        const rows = await lines();
        assert.equal(rows.filter((row) => row[1] === c.recordId).length, 1);
        assert.equal(rows.filter((row) => row[0] === 'intern_id').length, 1, 'one header');
      });

      // Stale events and tombstone order: the adapter conformance suite.
      it('rebuilds the file atomically for updates and tombstones', async () => {
        const id = uniqueName('life');
        const created = internCreated(id);
        const updated = internUpdated(id, { status: 'COMPLETED', lastName: 'Updated' });
        await harness.publish(created);
        await harness.publish(updated);
        await waitFor('update in file', async () =>
          (await lines()).some((row) => row[0] === id && row[4] === 'COMPLETED'),
        );
        let rows = (await lines()).filter((row) => row[0] === id);
        assert.deepEqual(rows, [
          [
            id,
            updated.recordId,
            'Updated',
            'Analytical "Engine" College',
            'COMPLETED',
            updated.occurredAt,
          ],
        ]);
        await harness.publish(internDeleted(id));
        await waitFor('tombstone', async () => !(await lines()).some((row) => row[0] === id));
        rows = await lines();
        assert.equal(rows[0]!.join(','), COLUMNS.join(','));
        // A rebuild may be in flight a moment longer; once it ends no temp file may remain.
        await waitFor(
          'no temp files left behind',
          async () => !(await readdir(join(baseDir, 'out'))).some((name) => name.includes('.tmp-')),
        );
      });

      it('skips a disabled attachment and dead-letters a poison message before writing the next', async () => {
        await harness.publish(
          envelope(products.contractId, 'product.created', 'sku', { sku: 'sku', name: 'n' }),
        );
        await harness.publishRaw(
          'interns.created',
          'poison',
          JSON.stringify({ contractId: 'interns', recordId: 'not-a-uuid' }),
        );
        const good = internCreated(uniqueName('good'));
        await harness.publish(good);
        await waitFor('good line', async () =>
          (await lines()).some((row) => row[1] === good.recordId),
        );
        await waitFor('dead letter', () =>
          harness.deadLetters.some(
            (d) => d.originalKey === 'poison' && d.failedAdapter === 'adapter.csv',
          ),
        );
        const dl = harness.deadLetters.find(
          (d) => d.originalKey === 'poison' && d.failedAdapter === 'adapter.csv',
        )!;
        assert.equal(dl.errorType, 'SCHEMA_VIOLATION');
        assert.equal(dl.contractId, 'interns', 'contractId read off the broken envelope');
        assert.equal(
          existsSync(join(baseDir, 'products.csv')),
          false,
          'disabled attachment wrote nothing',
        );
      });

      it('enforces one writer per file and keeps paths inside the data folder', async () => {
        const second = harness.controlPlane.attach(INTERNS, 'csv', {
          path: 'out/interns.csv',
          columns: ['record_id'],
        });
        const escape = harness.controlPlane.attach(INTERNS, 'csv', { path: '../escape.csv' });
        await adapter.runtime.refresh();
        await new Promise((resolve) => setTimeout(resolve, 20));
        const e = internCreated(uniqueName('locked'));
        await harness.publish(e);
        await waitFor(
          'dead letters',
          () => harness.deadLetters.filter((d) => d.traceId === e.traceId).length === 2,
          15_000,
        );
        const letters = harness.deadLetters.filter((d) => d.traceId === e.traceId);
        const locked = letters.find((d) => d.errorType === 'RETRY_EXHAUSTED')!;
        assert.match(locked.errorMessage, /another writer/);
        assert.equal(locked.attemptCount, 3);
        assert.equal(letters.find((d) => d.errorType === 'UNMAPPABLE_DATA')!.attemptCount, 1);
        assert.equal(existsSync(join(baseDir, '..', 'escape.csv')), false);
        assert.ok(
          (await lines()).some((row) => row[1] === e.recordId),
          'the owning attachment still wrote it',
        );
        harness.controlPlane.attachments.splice(
          harness.controlPlane.attachments.indexOf(second),
          1,
        );
        harness.controlPlane.attachments.splice(
          harness.controlPlane.attachments.indexOf(escape),
          1,
        );
        await adapter.runtime.refresh();
      });

      it('keeps an existing file header when a later contract version adds a field', async () => {
        const shop = createOnlyContract(uniqueName('shop'));
        await harness.broker.ensureTopic({ name: `${shop.contractId}.created`, partitions: 1 });
        const attachment = harness.controlPlane.attach(shop, 'csv', {
          path: `${shop.contractId}.csv`,
        });
        await adapter.runtime.refresh();
        await new Promise((resolve) => setTimeout(resolve, 20));
        const first = envelope(shop.contractId, 'product.created', 'a', { sku: 'a', name: 'A' });
        await harness.publish(first);
        const shopFile = join(baseDir, `${shop.contractId}.csv`);
        await waitFor('first line', async () =>
          (await readFile(shopFile, 'utf8').catch(() => '')).includes(first.recordId),
        );
        attachment.contract = {
          ...shop,
          schemaVersion: 2,
          fields: [...shop.fields, { name: 'colour', type: 'string', required: false }],
        };
        await adapter.runtime.refresh();
        const second = {
          ...envelope(shop.contractId, 'product.created', 'b', {
            sku: 'b',
            name: 'B',
            colour: 'red',
          }),
          schemaVersion: 2,
        };
        await harness.publish(second);
        await waitFor('second line', async () =>
          (await readFile(shopFile, 'utf8').catch(() => '')).includes(second.recordId),
        );
        const rows = parseCsv(await readFile(shopFile, 'utf8'));
        assert.deepEqual(rows[0], ['record_id', 'sku', 'name', 'created_at']);
        assert.equal(rows.length, 3);
        assert.equal(
          harness.deadLetters.some((d) => d.contractId === shop.contractId),
          false,
        );
      });

      it('takes over a lock left by a dead process', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'csv-lock-'));
        const { acquireFileLock } = await import('../../src/adapters/csv/file-lock.js');
        await writeFile(
          join(dir, 'x.csv.lock'),
          JSON.stringify({ pid: 2 ** 22 + 12345, token: 't' }),
        );
        const lock = await acquireFileLock(join(dir, 'x.csv'));
        await assert.rejects(acquireFileLock(join(dir, 'x.csv')), /another writer/);
        await lock.release();
        await (await acquireFileLock(join(dir, 'x.csv'))).release();
        await rm(dir, { recursive: true, force: true });
      });
    },
  );
}
