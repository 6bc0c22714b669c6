import { randomUUID } from 'node:crypto';
import { loadMigrations, runMigrations } from '@platform/core';
import { RELATIONAL_MIGRATIONS_DIR } from '../../src/adapters/relational/build-relational-adapter.js';
import type { AttachmentView } from '../../src/adapters/runtime/attachment.js';
import { internsLike } from './contracts.js';
import { openHarness, type Harness } from './harness.js';

/** A harness whose database also holds the relational adapter's tables. */
export async function openRelationalHarness(): Promise<Harness> {
  const h = await openHarness();
  await runMigrations(
    h.db,
    'integration-relational-adapter',
    loadMigrations(RELATIONAL_MIGRATIONS_DIR),
  );
  return h;
}

/** A fresh interns-like contract attached to the relational target in generic mode on `table`. */
export function genericRelationalAttachment(table: string): AttachmentView {
  const contract = internsLike();
  return {
    attachmentId: randomUUID(),
    contractId: contract.contractId,
    adapterType: 'relational',
    config: { mode: 'generic', table },
    enabled: true,
    contract,
  };
}
