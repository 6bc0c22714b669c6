/**
 * Retention of the SQL log (`retention.ts`): per topic, records older than `maxAgeMs`
 * and the oldest records of a partition past its share of `maxBytes` (value and headers)
 * are deleted — never at or past the slowest consumer group's committed offset on that
 * partition unless the topic's retention says `dropUnread`. (A group that is gone still
 * holds its committed offsets and so holds the log back: delete its rows from
 * `broker_group_offsets`, or use `dropUnread`.) A consumer whose position was pruned
 * reads on from the oldest record kept, as Kafka's `auto.offset.reset=earliest` does.
 */
import type { SqlDatabase } from '@platform/core';
import { retentionFor, type RetentionEntry } from '../retention.js';

/** Below this offset a partition's records may go: the slowest group's committed offset, or everything. */
const FLOOR = `(CASE WHEN $3::boolean THEN 9223372036854775807 ELSE coalesce(
    (SELECT min(g.committed_offset) FROM broker_group_offsets g WHERE g.topic = m.topic AND g.partition = m.partition),
    9223372036854775807) END)`;

const BY_AGE_SQL = `DELETE FROM broker_messages m
  WHERE m.topic = $1 AND m.created_at < now() - make_interval(secs => $2::double precision / 1000)
    AND m."offset" < ${FLOOR}`;

const BY_SIZE_SQL = `DELETE FROM broker_messages m USING (
    SELECT partition, "offset" FROM (
      SELECT partition, "offset", sum(octet_length(value) + octet_length(headers::text))
        OVER (PARTITION BY partition ORDER BY "offset" DESC) AS newer_bytes
      FROM broker_messages WHERE topic = $1) sized
    WHERE newer_bytes > $2) old
  WHERE m.topic = $1 AND m.partition = old.partition AND m."offset" = old."offset"
    AND m."offset" < ${FLOOR}`;

/** Applies every topic's retention once; returns how many records were deleted. */
export async function pruneSqlLog(
  db: SqlDatabase,
  entries: readonly RetentionEntry[],
): Promise<number> {
  if (entries.length === 0) return 0;
  const { rows: topics } = await db.query<{ name: string; partitions: number }>(
    'SELECT name, partitions FROM broker_topics',
  );
  let deleted = 0;
  for (const topic of topics) {
    const retention = retentionFor(entries, topic.name);
    const dropUnread = retention.dropUnread === true;
    if (retention.maxAgeMs !== undefined) {
      const result = await db.query(BY_AGE_SQL, [topic.name, retention.maxAgeMs, dropUnread]);
      deleted += result.rowCount;
    }
    if (retention.maxBytes !== undefined) {
      const perPartition = Math.floor(retention.maxBytes / Number(topic.partitions));
      const result = await db.query(BY_SIZE_SQL, [topic.name, perPartition, dropUnread]);
      deleted += result.rowCount;
    }
  }
  return deleted;
}
