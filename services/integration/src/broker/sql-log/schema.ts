/**
 * Tables of the SQL-log broker, created idempotently by the driver at start (they live
 * beside the service's own tables, prefixed `broker_`, so no migration folder is shared):
 *
 * - `broker_topics`: one row per topic and its partition count.
 * - `broker_partitions`: the next offset of each partition (its row lock serialises producers).
 * - `broker_messages`: the log, one row per record, keyed by (topic, partition, offset).
 * - `broker_group_offsets`: per consumer group and partition, the next offset to read.
 */
import type { SqlDatabase } from '@platform/core';

const DDL = [
  `CREATE TABLE IF NOT EXISTS broker_topics (
    name text PRIMARY KEY,
    partitions integer NOT NULL CHECK (partitions > 0),
    created_at timestamptz NOT NULL DEFAULT now()
  )`,
  `CREATE TABLE IF NOT EXISTS broker_partitions (
    topic text NOT NULL REFERENCES broker_topics (name) ON DELETE CASCADE,
    partition integer NOT NULL,
    next_offset bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (topic, partition)
  )`,
  `CREATE TABLE IF NOT EXISTS broker_messages (
    topic text NOT NULL,
    partition integer NOT NULL,
    "offset" bigint NOT NULL,
    key text NOT NULL,
    value bytea NOT NULL,
    headers jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (topic, partition, "offset")
  )`,
  `CREATE TABLE IF NOT EXISTS broker_group_offsets (
    group_id text NOT NULL,
    topic text NOT NULL,
    partition integer NOT NULL,
    committed_offset bigint NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (group_id, topic, partition)
  )`,
  // The publisher's de-duplication id (the record id), so the intake outbox's reconciler
  // can tell its record from another one at the same offset.
  'ALTER TABLE broker_messages ADD COLUMN IF NOT EXISTS dedupe_id text',
];

export async function ensureBrokerSchema(db: SqlDatabase): Promise<void> {
  await db.withAdvisoryLock('broker:sql-log:schema', async (tx) => {
    for (const statement of DDL) await tx.query(statement);
  });
}

/** NOTIFY channel that wakes consumers when a record is appended. */
export const WAKE_CHANNEL = 'broker_log_appended';
