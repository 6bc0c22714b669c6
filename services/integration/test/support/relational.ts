import { randomUUID } from 'node:crypto';
import type { AttachmentView } from '../../src/adapters/runtime/attachment.js';
import { internsLike } from './contracts.js';

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
