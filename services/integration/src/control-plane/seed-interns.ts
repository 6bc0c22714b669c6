/**
 * First-start set-up (issue 6): the interns contract of spec section 2.3 is registered,
 * and attached to the relational adapter (shaped mode) and the csv adapter as soon as
 * each of those types has registered (their config schemas are needed to validate the
 * attachment). Each step runs once per database (`platform_seeds`); an operator who
 * later disables or changes an attachment is not overridden.
 */
import { randomUUID } from 'node:crypto';
import type { Logger, SqlDatabase } from '@platform/core';
import type { Broker } from '../broker/broker.js';
import { columnName, type ContractDefinition } from '../contracts/contract.js';
import { findContract, insertContract } from '../contracts/contract-store.js';
import { INTERNS_CONTRACT } from '../contracts/interns-contract.js';
import { contractTopics } from '../contracts/topics.js';
import type { StoredAdapterType } from './adapter-types/adapter-type-store.js';
import { insertAttachment } from './attachments/attachment-store.js';
import { configErrors, type ConfigSchemas } from './config-schema.js';
import { evolveContract } from './contract-use-cases.js';

/** Default attachment configs of the interns contract, by adapter type. */
export const INTERNS_SEED_CONFIGS: Record<string, Record<string, unknown>> = {
  relational: { mode: 'shaped', table: 'interns', tombstone: 'delete' },
  csv: {
    path: 'interns.csv',
    columns: ['record_id', ...INTERNS_CONTRACT.fields.map((f) => columnName(f.name)), 'created_at'],
  },
};

async function claimSeed(db: SqlDatabase, name: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'INSERT INTO platform_seeds (name) VALUES ($1) ON CONFLICT (name) DO NOTHING',
    [name],
  );
  return rowCount > 0;
}

async function releaseSeed(db: SqlDatabase, name: string): Promise<void> {
  await db.query('DELETE FROM platform_seeds WHERE name = $1', [name]);
}

/**
 * Registers the interns contract (once), moves a stored older version to the one shipped
 * in code through the same BACKWARD check as any edit (an incompatible shipped version
 * stops the start), and provisions its topics (every start).
 */
export async function seedInternsContract(
  db: SqlDatabase,
  broker: Broker,
  logger: Logger,
  shipped: ContractDefinition = INTERNS_CONTRACT,
): Promise<void> {
  const existing = await findContract(db, shipped.contractId);
  if (!existing) {
    if (await insertContract(db, shipped))
      logger.info({ contractId: shipped.contractId }, 'shipped contract registered');
  } else if (existing.contract.schemaVersion < shipped.schemaVersion) {
    await evolveContract(db, broker, shipped.contractId, shipped);
    logger.info(
      { contractId: shipped.contractId, schemaVersion: shipped.schemaVersion },
      'contract moved to the shipped version',
    );
  }
  const stored = await findContract(db, shipped.contractId);
  for (const topic of contractTopics(stored?.contract ?? shipped)) await broker.ensureTopic(topic);
}

/** Attaches the interns contract to a freshly registered relational or csv type, once. */
export async function seedInternsAttachment(
  db: SqlDatabase,
  logger: Logger,
  type: StoredAdapterType,
  configSchemas: ConfigSchemas,
  configs: Record<string, Record<string, unknown>> = INTERNS_SEED_CONFIGS,
): Promise<void> {
  const seed = configs[type.type];
  if (!seed || !(await findContract(db, INTERNS_CONTRACT.contractId))) return;
  const name = `interns-attachment:${type.type}`;
  if (!(await claimSeed(db, name))) return;
  const config = structuredClone(seed);
  const validate = configSchemas.validator(type.configSchema);
  if (!validate(config)) {
    await releaseSeed(db, name);
    logger.error(
      { adapterType: type.type, errors: configErrors(type.configSchema, validate.errors ?? []) },
      'default interns attachment does not fit the adapter type config schema; not attached',
    );
    return;
  }
  await insertAttachment(db, {
    attachmentId: randomUUID(),
    contractId: INTERNS_CONTRACT.contractId,
    adapterType: type.type,
    config,
  });
  logger.info(
    { contractId: INTERNS_CONTRACT.contractId, adapterType: type.type, config },
    'interns contract attached',
  );
}
