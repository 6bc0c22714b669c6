/** The published text of an envelope made without serialising its payload twice (issue 11, item 6). */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { buildEnvelope } from '../../src/contracts/envelope.js';
import { INTERNS_CONTRACT } from '../../src/contracts/interns-contract.js';
import type { Payload } from '../../src/contracts/payload.js';
import { withRevision } from '../../src/submission/publish-envelope.js';
import { internPayload } from '../support/contracts.js';

describe('withRevision', () => {
  it('gives the bytes JSON.stringify gives once the revision is set', () => {
    const envelope = buildEnvelope(
      INTERNS_CONTRACT,
      'intern.created',
      { ...internPayload(), lastName: 'Ø "quoted" \\ \u2028' } as Payload,
      { recordId: randomUUID(), traceId: randomUUID(), occurredAt: new Date() },
    );
    const stored = JSON.stringify(envelope);
    assert.equal(withRevision(stored, undefined), stored);
    envelope.revision = 12;
    assert.equal(withRevision(stored, 12), JSON.stringify(envelope));
  });
});
