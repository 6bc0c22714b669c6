/**
 * Data access of the dead-letter read model (`dead_letters`): insert once per position
 * on the dead-letter topic, list with filters, group, find one, mark replayed.
 */
import type { SqlExecutor } from '@platform/core';

export interface DeadLetter {
  id: string;
  originalTopic: string;
  originalPartition: number;
  originalOffset: number;
  originalKey: string;
  contractId: string | null;
  /** The unmodified original message: JSON when it parsed, else its text. */
  originalPayload: unknown;
  errorType: string;
  errorMessage: string;
  failedAdapter: string;
  attemptCount: number;
  quarantinedAt: string;
  traceId: string | null;
  replayed: boolean;
  replayedAt: string | null;
  /** Where the dead letter itself sits on the dead-letter topic. */
  deadLetterTopic: string;
  deadLetterPartition: number;
  deadLetterOffset: number;
}

export type NewDeadLetter = Omit<DeadLetter, 'replayed' | 'replayedAt'>;

interface Row {
  id: string;
  dlq_topic: string;
  dlq_partition: number;
  dlq_offset: string | number;
  original_topic: string;
  original_partition: number;
  original_offset: string | number;
  original_key: string;
  contract_id: string | null;
  original_payload: unknown;
  error_type: string;
  error_message: string;
  failed_adapter: string;
  attempt_count: number;
  quarantined_at: Date;
  trace_id: string | null;
  replayed: boolean;
  replayed_at: Date | null;
}

const COLUMNS = `id, dlq_topic, dlq_partition, dlq_offset, original_topic, original_partition, original_offset,
  original_key, contract_id, original_payload, error_type, error_message, failed_adapter, attempt_count,
  quarantined_at, trace_id, replayed, replayed_at`;

function toDeadLetter(row: Row): DeadLetter {
  return {
    id: row.id,
    originalTopic: row.original_topic,
    originalPartition: Number(row.original_partition),
    originalOffset: Number(row.original_offset),
    originalKey: row.original_key,
    contractId: row.contract_id,
    originalPayload: row.original_payload,
    errorType: row.error_type,
    errorMessage: row.error_message,
    failedAdapter: row.failed_adapter,
    attemptCount: Number(row.attempt_count),
    quarantinedAt: new Date(row.quarantined_at).toISOString(),
    traceId: row.trace_id,
    replayed: row.replayed,
    replayedAt: row.replayed_at ? new Date(row.replayed_at).toISOString() : null,
    deadLetterTopic: row.dlq_topic,
    deadLetterPartition: Number(row.dlq_partition),
    deadLetterOffset: Number(row.dlq_offset),
  };
}

/** Stores a dead letter; a redelivery of the same position is ignored. */
export async function insertDeadLetter(db: SqlExecutor, d: NewDeadLetter): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO dead_letters (id, dlq_topic, dlq_partition, dlq_offset, original_topic, original_partition,
       original_offset, original_key, contract_id, original_payload, error_type, error_message, failed_adapter,
       attempt_count, quarantined_at, trace_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $12, $13, $14, $15, $16)
     ON CONFLICT (dlq_topic, dlq_partition, dlq_offset) DO NOTHING`,
    [
      d.id,
      d.deadLetterTopic,
      d.deadLetterPartition,
      d.deadLetterOffset,
      d.originalTopic,
      d.originalPartition,
      d.originalOffset,
      d.originalKey,
      d.contractId,
      JSON.stringify(d.originalPayload ?? null),
      d.errorType,
      d.errorMessage,
      d.failedAdapter,
      d.attemptCount,
      d.quarantinedAt,
      d.traceId,
    ],
  );
  return rowCount > 0;
}

export interface DeadLetterFilter {
  contractId?: string | undefined;
  errorType?: string | undefined;
  failedAdapter?: string | undefined;
  replayed?: boolean | undefined;
}

/** Grouping dimensions and their columns (never user text in SQL). */
export const GROUP_COLUMNS = {
  contractId: 'contract_id',
  errorType: 'error_type',
  failedAdapter: 'failed_adapter',
} as const;
export type GroupDimension = keyof typeof GROUP_COLUMNS;

function where(filter: DeadLetterFilter): { clause: string; params: unknown[] } {
  return {
    clause: `WHERE ($1::text IS NULL OR contract_id = $1) AND ($2::text IS NULL OR error_type = $2)
      AND ($3::text IS NULL OR failed_adapter = $3) AND ($4::boolean IS NULL OR replayed = $4)`,
    params: [
      filter.contractId ?? null,
      filter.errorType ?? null,
      filter.failedAdapter ?? null,
      filter.replayed ?? null,
    ],
  };
}

export async function listDeadLetters(
  db: SqlExecutor,
  filter: DeadLetterFilter,
  page: { limit: number; offset: number },
): Promise<{ deadLetters: DeadLetter[]; total: number }> {
  const { clause, params } = where(filter);
  const [list, count] = await Promise.all([
    db.query<Row>(
      `SELECT ${COLUMNS} FROM dead_letters ${clause} ORDER BY quarantined_at DESC, id LIMIT $5 OFFSET $6`,
      [...params, page.limit, page.offset],
    ),
    db.query<{ total: string | number }>(
      `SELECT count(*) AS total FROM dead_letters ${clause}`,
      params,
    ),
  ]);
  return { deadLetters: list.rows.map(toDeadLetter), total: Number(count.rows[0]?.total ?? 0) };
}

/**
 * Ids of the entries a filter selects, oldest first (the order they failed in, which a
 * bulk replay keeps), at most `limit`, and how many the filter selects in all.
 */
export async function selectDeadLetterIds(
  db: SqlExecutor,
  filter: DeadLetterFilter,
  limit: number,
): Promise<{ ids: string[]; matched: number }> {
  const { clause, params } = where(filter);
  const [list, count] = await Promise.all([
    db.query<{ id: string }>(
      `SELECT id FROM dead_letters ${clause} ORDER BY quarantined_at, dlq_partition, dlq_offset LIMIT $5`,
      [...params, limit],
    ),
    db.query<{ total: string | number }>(
      `SELECT count(*) AS total FROM dead_letters ${clause}`,
      params,
    ),
  ]);
  return { ids: list.rows.map((r) => r.id), matched: Number(count.rows[0]?.total ?? 0) };
}

export async function groupDeadLetters(
  db: SqlExecutor,
  filter: DeadLetterFilter,
  dimensions: GroupDimension[],
): Promise<Array<Record<string, unknown> & { count: number }>> {
  const { clause, params } = where(filter);
  const columns = dimensions.map((d) => `${GROUP_COLUMNS[d]} AS "${d}"`).join(', ');
  const groupBy = dimensions.map((d) => GROUP_COLUMNS[d]).join(', ');
  const { rows } = await db.query<Record<string, unknown>>(
    `SELECT ${columns}, count(*) AS count, max(quarantined_at) AS latest FROM dead_letters ${clause}
     GROUP BY ${groupBy} ORDER BY count(*) DESC, ${groupBy}`,
    params,
  );
  return rows.map((row) => ({
    ...Object.fromEntries(dimensions.map((d) => [d, row[d] ?? null])),
    count: Number(row.count),
    latestQuarantinedAt: new Date(row.latest as Date).toISOString(),
  }));
}

export async function findDeadLetter(db: SqlExecutor, id: string): Promise<DeadLetter | undefined> {
  const { rows } = await db.query<Row>(`SELECT ${COLUMNS} FROM dead_letters WHERE id = $1`, [id]);
  return rows[0] && toDeadLetter(rows[0]);
}

export async function markReplayed(db: SqlExecutor, id: string): Promise<DeadLetter | undefined> {
  const { rows } = await db.query<Row>(
    `UPDATE dead_letters SET replayed = true, replayed_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
    [id],
  );
  return rows[0] && toDeadLetter(rows[0]);
}
