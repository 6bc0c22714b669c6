/** The ordered classification rules, on real errors from real engines where they exist. */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createSqlDatabase } from '@platform/core';
import {
  classify,
  isOutage,
  DeserializationError,
  RollbackError,
  TransactionError,
  TransactionOpenError,
  UnmappableDataError,
} from '../../../src/adapters/runtime/failures.js';
import { inTransaction } from '../../../src/adapters/relational/transaction.js';

describe('failure classification', () => {
  it('classifies deserialization and unmappable data as non-retriable with their own types', () => {
    assert.deepEqual(classify(new DeserializationError('x')), {
      retriable: false,
      errorType: 'SCHEMA_VIOLATION',
      rule: 'deserialization',
    });
    assert.equal(classify(new UnmappableDataError('x')).errorType, 'UNMAPPABLE_DATA');
  });

  it('looks through the whole cause chain', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
    });
    const wrapped = new Error('outer', { cause: new Error('middle', { cause: refused }) });
    assert.deepEqual(classify(wrapped), {
      retriable: true,
      errorType: 'RETRY_EXHAUSTED',
      rule: 'connection refused',
    });
    assert.equal(
      classify(new Error('x', { cause: new DeserializationError('bad') })).errorType,
      'SCHEMA_VIOLATION',
    );
  });

  it('retries transaction failures: open, rollback, wrapped', () => {
    for (const error of [
      new TransactionOpenError('a'),
      new RollbackError('b'),
      new TransactionError('c'),
    ]) {
      assert.equal(classify(error).retriable, true, error.name);
    }
  });

  it('puts the narrow data error before the broad data-access rule (first match wins); a closed database cannot open a transaction', async () => {
    const db = await createSqlDatabase({ dataDir: 'memory://' });
    try {
      await db.query('CREATE TABLE t (d date NOT NULL)');
      const badDate = await db
        .query("INSERT INTO t VALUES ('not-a-date')")
        .catch((e: unknown) => e);
      assert.deepEqual(classify(badDate), {
        retriable: false,
        errorType: 'UNMAPPABLE_DATA',
        rule: 'data rejected by the database',
      });
      const nullValue = await inTransaction(db, (tx) =>
        tx.query('INSERT INTO t VALUES (NULL)'),
      ).catch((e: unknown) => e);
      assert.equal(
        classify(nullValue).errorType,
        'UNMAPPABLE_DATA',
        'a write error inside a transaction passes through unwrapped',
      );
      // The same SQLSTATE family check that makes 22/23 non-retriable leaves 40001 retriable.
      const serialization = Object.assign(new Error('could not serialize access'), {
        code: '40001',
      });
      assert.deepEqual(classify(serialization), {
        retriable: true,
        errorType: 'RETRY_EXHAUSTED',
        rule: 'transient data-access error',
      });
    } finally {
      await db.close();
    }
    const error = await inTransaction(db, async () => 1).catch((e: unknown) => e);
    assert.ok(error instanceof TransactionOpenError);
    assert.equal(classify(error).retriable, true);
  });

  it('retries real file I/O errors', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'classify-'));
    await writeFile(join(dir, 'file'), 'x');
    const { mkdir } = await import('node:fs/promises');
    const error = await mkdir(join(dir, 'file', 'sub'), { recursive: true }).catch(
      (e: unknown) => e,
    );
    assert.deepEqual(classify(new Error('write failed', { cause: error })), {
      retriable: true,
      errorType: 'RETRY_EXHAUSTED',
      rule: 'file I/O error',
    });
    await rm(dir, { recursive: true, force: true });
  });

  it('takes a failing or full disk for an outage (the consumer waits), not a bad record', () => {
    for (const code of ['EIO', 'ENOSPC', 'EDQUOT']) {
      const cause = Object.assign(new Error(`${code}: fdatasync`), { code });
      const classification = classify(new Error('journal append failed', { cause }));
      assert.deepEqual(classification, {
        retriable: true,
        errorType: 'RETRY_EXHAUSTED',
        rule: 'disk failing or full',
      });
      assert.equal(isOutage(classification), true, code);
    }
    const notDir = Object.assign(new Error('ENOTDIR'), { code: 'ENOTDIR' });
    assert.equal(isOutage(classify(notDir)), false);
  });

  it('takes a dead PGlite thread for an outage (the consumer waits), not a bad record', () => {
    const classification = classify(new Error('the PGlite thread exited (code 1)'));
    assert.equal(classification.rule, 'connection refused');
    assert.equal(isOutage(classification), true);
  });

  it('labels anything unrecognized UNCLASSIFIED_FAILURE, never RETRY_EXHAUSTED', () => {
    assert.deepEqual(classify(new TypeError('boom')), {
      retriable: false,
      errorType: 'UNCLASSIFIED_FAILURE',
      rule: 'unrecognized',
    });
    assert.equal(classify('a string').errorType, 'UNCLASSIFIED_FAILURE');
  });
});
