/** Data access of adapter attachments (`adapter_attachments`). */
import type { SqlExecutor } from '@platform/core';

export interface Attachment {
  attachmentId: string;
  contractId: string;
  adapterType: string;
  config: Record<string, unknown>;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

interface Row {
  attachment_id: string;
  contract_id: string;
  adapter_type: string;
  config: Record<string, unknown>;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'attachment_id, contract_id, adapter_type, config, enabled, created_at, updated_at';

/**
 * NOTIFY channel (payload: the adapter type) sent by the statement that adds or changes an
 * attachment, so the feed wakes the waiting adapters of that type only — in this process
 * and in any other control plane on the same database.
 */
export const ATTACHMENTS_CHANGED_CHANNEL = 'integration_attachments_changed';

function toAttachment(row: Row): Attachment {
  return {
    attachmentId: row.attachment_id,
    contractId: row.contract_id,
    adapterType: row.adapter_type,
    config: row.config,
    enabled: row.enabled,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

/** Inserts an attachment; undefined when the same (contract, type, config) exists. */
export async function insertAttachment(
  db: SqlExecutor,
  attachment: {
    attachmentId: string;
    contractId: string;
    adapterType: string;
    config: Record<string, unknown>;
    enabled?: boolean;
  },
): Promise<Attachment | undefined> {
  const { rows } = await db.query<Row>(
    `WITH changed AS (
       INSERT INTO adapter_attachments (attachment_id, contract_id, adapter_type, config, enabled)
       VALUES ($1, $2, $3, $4::jsonb, $5)
       ON CONFLICT (contract_id, adapter_type, config) DO NOTHING
       RETURNING ${COLUMNS})
     SELECT changed.*, pg_notify($6, adapter_type) FROM changed`,
    [
      attachment.attachmentId,
      attachment.contractId,
      attachment.adapterType,
      JSON.stringify(attachment.config),
      attachment.enabled ?? true,
      ATTACHMENTS_CHANGED_CHANNEL,
    ],
  );
  return rows[0] && toAttachment(rows[0]);
}

export async function listAttachments(
  db: SqlExecutor,
  filter: { contractId?: string; adapterType?: string },
): Promise<Attachment[]> {
  const { rows } = await db.query<Row>(
    `SELECT ${COLUMNS} FROM adapter_attachments
     WHERE ($1::text IS NULL OR contract_id = $1) AND ($2::text IS NULL OR adapter_type = $2)
     ORDER BY created_at, attachment_id`,
    [filter.contractId ?? null, filter.adapterType ?? null],
  );
  return rows.map(toAttachment);
}

export async function setAttachmentEnabled(
  db: SqlExecutor,
  contractId: string,
  attachmentId: string,
  enabled: boolean,
): Promise<Attachment | undefined> {
  const { rows } = await db.query<Row>(
    `WITH changed AS (
       UPDATE adapter_attachments SET enabled = $3, updated_at = now()
       WHERE contract_id = $1 AND attachment_id = $2 RETURNING ${COLUMNS})
     SELECT changed.*, pg_notify($4, adapter_type) FROM changed`,
    [contractId, attachmentId, enabled, ATTACHMENTS_CHANGED_CHANNEL],
  );
  return rows[0] && toAttachment(rows[0]);
}
