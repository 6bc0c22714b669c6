/** Data access of adapter type descriptors (`adapter_types`). */
import type { SqlExecutor } from '@platform/core';
import type { JsonSchema } from '../config-schema.js';

export interface AdapterTypeDescriptor {
  type: string;
  description: string;
  /** JSON schema an attachment's config must satisfy; every property has a description. */
  configSchema: JsonSchema;
  /** The adapter's consumer group: explicit and unique per adapter type (spec rule 3). */
  consumerGroup: string;
  /** Base URL of the adapter's admin API, when it has one. */
  adminUrl?: string | undefined;
}

export interface StoredAdapterType extends AdapterTypeDescriptor {
  registeredAt: string;
  lastSeenAt: string;
}

interface Row {
  adapter_type: string;
  description: string;
  config_schema: JsonSchema;
  consumer_group: string;
  admin_url: string | null;
  registered_at: Date;
  last_seen_at: Date;
}

const COLUMNS =
  'adapter_type, description, config_schema, consumer_group, admin_url, registered_at, last_seen_at';

function toStored(row: Row): StoredAdapterType {
  return {
    type: row.adapter_type,
    description: row.description,
    configSchema: row.config_schema,
    consumerGroup: row.consumer_group,
    ...(row.admin_url ? { adminUrl: row.admin_url } : {}),
    registeredAt: new Date(row.registered_at).toISOString(),
    lastSeenAt: new Date(row.last_seen_at).toISOString(),
  };
}

export async function findAdapterType(
  db: SqlExecutor,
  type: string,
): Promise<StoredAdapterType | undefined> {
  const { rows } = await db.query<Row>(
    `SELECT ${COLUMNS} FROM adapter_types WHERE adapter_type = $1`,
    [type],
  );
  return rows[0] && toStored(rows[0]);
}

export async function listAdapterTypes(db: SqlExecutor): Promise<StoredAdapterType[]> {
  const { rows } = await db.query<Row>(
    `SELECT ${COLUMNS} FROM adapter_types ORDER BY adapter_type`,
  );
  return rows.map(toStored);
}

/** The type using `consumerGroup`, if any. */
export async function typeOfConsumerGroup(
  db: SqlExecutor,
  consumerGroup: string,
): Promise<string | undefined> {
  const { rows } = await db.query<{ adapter_type: string }>(
    'SELECT adapter_type FROM adapter_types WHERE consumer_group = $1',
    [consumerGroup],
  );
  return rows[0]?.adapter_type;
}

/** Inserts or refreshes a descriptor (and its heartbeat); `created` is true for a first registration. */
export async function upsertAdapterType(
  db: SqlExecutor,
  d: AdapterTypeDescriptor,
): Promise<{ stored: StoredAdapterType; created: boolean }> {
  const { rows } = await db.query<Row & { created: boolean }>(
    `INSERT INTO adapter_types (adapter_type, description, config_schema, consumer_group, admin_url)
     VALUES ($1, $2, $3::jsonb, $4, $5)
     ON CONFLICT (adapter_type) DO UPDATE SET description = EXCLUDED.description,
       config_schema = EXCLUDED.config_schema, consumer_group = EXCLUDED.consumer_group,
       admin_url = EXCLUDED.admin_url, last_seen_at = now()
     RETURNING ${COLUMNS}, (xmax = 0) AS created`,
    [d.type, d.description, JSON.stringify(d.configSchema), d.consumerGroup, d.adminUrl ?? null],
  );
  const row = rows[0]!;
  return { stored: toStored(row), created: Boolean(row.created) };
}
