/**
 * Data access of the contract registry (`contracts`, `contract_versions`). Functions
 * take the database handle first; writes of a contract and its version row happen in
 * one transaction.
 */
import type { SqlDatabase, SqlExecutor } from '@platform/core';
import type { ContractDefinition } from './contract.js';

export interface StoredContract {
  contract: ContractDefinition;
  createdAt: string;
  updatedAt: string;
}

interface ContractRow {
  definition: ContractDefinition;
  created_at: Date | string;
  updated_at: Date | string;
}

const iso = (value: Date | string): string => new Date(value).toISOString();

function toStored(row: ContractRow): StoredContract {
  return {
    contract: row.definition,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** NOTIFY channel (payload: the contract id) sent in the transaction that changes a contract. */
export const CONTRACT_CHANGED_CHANNEL = 'integration_contract_changed';

type ChangeListener = (contractId: string) => void;
const listeners = new Set<ChangeListener>();

/**
 * Calls `listener` with the id of every contract changed by this process, as soon as its
 * change committed (other processes learn of it by the NOTIFY). Returns the unsubscribe.
 */
export function onContractChange(listener: ChangeListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const changed = (contractId: string) => {
  for (const listener of listeners) listener(contractId);
};

const notifyChange = (tx: SqlExecutor, contractId: string) =>
  tx.query('SELECT pg_notify($1, $2)', [CONTRACT_CHANGED_CHANNEL, contractId]);

export async function findContract(
  db: SqlExecutor,
  contractId: string,
): Promise<StoredContract | undefined> {
  const { rows } = await db.query<ContractRow>(
    'SELECT definition, created_at, updated_at FROM contracts WHERE contract_id = $1',
    [contractId],
  );
  return rows[0] && toStored(rows[0]);
}

export async function listContracts(db: SqlExecutor): Promise<StoredContract[]> {
  const { rows } = await db.query<ContractRow>(
    'SELECT definition, created_at, updated_at FROM contracts ORDER BY contract_id',
  );
  return rows.map(toStored);
}

/** Inserts a new contract and its first version row; false when the id already exists. */
export async function insertContract(
  db: SqlDatabase,
  contract: ContractDefinition,
): Promise<boolean> {
  return db
    .transaction(async (tx) => {
      const inserted = await tx.query(
        `INSERT INTO contracts (contract_id, title, schema_version, definition) VALUES ($1, $2, $3, $4::jsonb)
       ON CONFLICT (contract_id) DO NOTHING`,
        [contract.contractId, contract.title, contract.schemaVersion, JSON.stringify(contract)],
      );
      if (inserted.rowCount === 0) return false;
      await insertVersion(tx, contract);
      await notifyChange(tx, contract.contractId);
      return true;
    })
    .then((done) => (done && changed(contract.contractId), done));
}

/** Replaces the current definition when it is still at `previousVersion`; false when another edit won. */
export async function updateContract(
  db: SqlDatabase,
  contract: ContractDefinition,
  previousVersion: number,
): Promise<boolean> {
  return db
    .transaction(async (tx) => {
      const updated = await tx.query(
        `UPDATE contracts SET title = $2, schema_version = $3, definition = $4::jsonb, updated_at = now()
       WHERE contract_id = $1 AND schema_version = $5`,
        [
          contract.contractId,
          contract.title,
          contract.schemaVersion,
          JSON.stringify(contract),
          previousVersion,
        ],
      );
      if (updated.rowCount === 0) return false;
      await insertVersion(tx, contract);
      await notifyChange(tx, contract.contractId);
      return true;
    })
    .then((done) => (done && changed(contract.contractId), done));
}

/** Removes a contract registered a moment ago whose topics could not be provisioned. */
export async function deleteContract(db: SqlExecutor, contractId: string): Promise<void> {
  await db.query('DELETE FROM contract_versions WHERE contract_id = $1', [contractId]);
  await db.query('DELETE FROM contracts WHERE contract_id = $1', [contractId]);
  await notifyChange(db, contractId);
  changed(contractId);
}

async function insertVersion(tx: SqlExecutor, contract: ContractDefinition): Promise<void> {
  await tx.query(
    'INSERT INTO contract_versions (contract_id, schema_version, definition) VALUES ($1, $2, $3::jsonb)',
    [contract.contractId, contract.schemaVersion, JSON.stringify(contract)],
  );
}

export interface ContractVersion {
  schemaVersion: number;
  createdAt: string;
  contract: ContractDefinition;
}

export async function listVersions(
  db: SqlExecutor,
  contractId: string,
): Promise<ContractVersion[]> {
  const { rows } = await db.query<{
    schema_version: number;
    created_at: Date;
    definition: ContractDefinition;
  }>(
    'SELECT schema_version, created_at, definition FROM contract_versions WHERE contract_id = $1 ORDER BY schema_version',
    [contractId],
  );
  return rows.map((row) => ({
    schemaVersion: Number(row.schema_version),
    createdAt: iso(row.created_at),
    contract: row.definition,
  }));
}
