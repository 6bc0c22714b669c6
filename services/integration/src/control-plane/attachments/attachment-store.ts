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
    `INSERT INTO adapter_attachments (attachment_id, contract_id, adapter_type, config, enabled)
     VALUES ($1, $2, $3, $4::jsonb, $5)
     ON CONFLICT (contract_id, adapter_type, config) DO NOTHING
     RETURNING ${COLUMNS}`,
    [
      attachment.attachmentId,
      attachment.contractId,
      attachment.adapterType,
      JSON.stringify(attachment.config),
      attachment.enabled ?? true,
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
    `UPDATE adapter_attachments SET enabled = $3, updated_at = now()
     WHERE contract_id = $1 AND attachment_id = $2 RETURNING ${COLUMNS}`,
    [contractId, attachmentId, enabled],
  );
  return rows[0] && toAttachment(rows[0]);
}
