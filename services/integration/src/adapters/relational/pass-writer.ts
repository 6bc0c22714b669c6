/**
 * One transaction per consumer pass (issue 11): the partition batches handed to the
 * relational target within one turn of the event loop — a consumer pass hands every
 * ready partition's batch at once — are written in one transaction, and the batches of
 * one attachment as one merged batch (`writeRelationalBatch`: four round trips in all,
 * not four per partition). Batches that arrive while a transaction runs wait and go
 * together in the next one, at most `MAX_EVENTS_PER_TRANSACTION` events a transaction.
 *
 * Per partition nothing changes for the broker: each batch still resolves with its own
 * outcomes or throws on its own. When the merged transaction fails, every batch of it is
 * written again alone, so a batch that fails for its own sake (a constraint, a value
 * the table refuses) fails alone and its neighbours commit.
 *
 * Why: on the embedded default the relational adapter's BEGIN, read, write and COMMIT per
 * partition batch were the most frequent statements of the single-POST bench (295
 * transactions for 1,000 records, about six partitions a pass: 27 Nov 2026), and on
 * PostgreSQL each is a commit (an fsync) of its own.
 */
import { MicroBatcher, type SqlDatabase } from '@platform/core';
import type { TargetEvent, WriteOutcome } from '../runtime/adapter-target.js';
import { writeRelationalBatch } from './batch-write.js';
import type { Mapping, Row } from './mapping.js';
import { inTransaction } from './transaction.js';

/** Bounds one statement's rows (and how long PGlite holds the event loop with it). */
export const MAX_EVENTS_PER_TRANSACTION = 1000;

interface PartitionBatch {
  mapping: Mapping;
  events: TargetEvent[];
  rows: Row[];
}

type Written = { outcomes: WriteOutcome[] } | { error: unknown };

export type BatchWriter = (
  mapping: Mapping,
  events: TargetEvent[],
  rows: Row[],
) => Promise<WriteOutcome[]>;

export function createPassWriter(db: SqlDatabase): BatchWriter {
  const alone = (batch: PartitionBatch) =>
    inTransaction(db, (tx) => writeRelationalBatch(tx, batch.mapping, batch.events, batch.rows));

  const together = (batches: PartitionBatch[]) =>
    inTransaction(db, async (tx) => {
      const byMapping = new Map<Mapping, PartitionBatch[]>();
      for (const batch of batches)
        byMapping.set(batch.mapping, [...(byMapping.get(batch.mapping) ?? []), batch]);
      // Attachments in one order in every transaction, so two transactions lock keys alike.
      const groups = [...byMapping].sort(([a], [b]) =>
        a.attachmentId < b.attachmentId ? -1 : a.attachmentId > b.attachmentId ? 1 : 0,
      );
      const outcomesOf = new Map<PartitionBatch, WriteOutcome[]>();
      for (const [mapping, group] of groups) {
        const outcomes = await writeRelationalBatch(
          tx,
          mapping,
          group.flatMap((batch) => batch.events),
          group.flatMap((batch) => batch.rows),
        );
        let at = 0;
        for (const batch of group) {
          outcomesOf.set(batch, outcomes.slice(at, at + batch.events.length));
          at += batch.events.length;
        }
      }
      return batches.map((batch) => outcomesOf.get(batch)!);
    });

  const batcher = new MicroBatcher<PartitionBatch, Written>(
    async (batches) => {
      if (batches.length > 1) {
        try {
          return (await together(batches)).map((outcomes) => ({ outcomes }));
        } catch {
          // Rolled back whole: each batch alone finds (and reports) what failed.
        }
      }
      return Promise.all(
        batches.map((batch) =>
          alone(batch).then(
            (outcomes): Written => ({ outcomes }),
            (error: unknown): Written => ({ error }),
          ),
        ),
      );
    },
    Number.POSITIVE_INFINITY,
    { of: (batch) => batch.events.length, max: MAX_EVENTS_PER_TRANSACTION },
  );

  return async (mapping, events, rows) => {
    const [written] = await batcher.run([{ mapping, events, rows }]);
    if ('error' in written!) throw written.error;
    return written!.outcomes;
  };
}
