import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { buildEnvelope, createEnvelopeValidator } from '../../src/contracts/envelope.js';
import { INTERNS_CONTRACT } from '../../src/contracts/interns-contract.js';
import { naturalKeyOf, tombstonePayload, validatePayload } from '../../src/contracts/payload.js';
import { createOnly, internPayload } from '../support/contracts.js';

const envelopes = createEnvelopeValidator();
const envelopeViolations = envelopes.violations.bind(envelopes);

describe('payload validation (producer strict)', () => {
  it('applies the default before the required check (absent or blank)', () => {
    for (const status of [undefined, '', '  ', null]) {
      const check = validatePayload(
        INTERNS_CONTRACT,
        internPayload(status === undefined ? {} : { status }),
      );
      assert.ok(check.ok, JSON.stringify(check));
      assert.equal(check.payload.status, 'ACTIVE');
    }
  });

  it('reports every field-level error: required, email, date, enum, type, undeclared keys', () => {
    const check = validatePayload(INTERNS_CONTRACT, {
      ...internPayload({
        email: 'nope',
        startDate: '2024-13-01',
        status: 'PAUSED',
        lastName: 42,
        colour: 'red',
      }),
      firstName: undefined,
    });
    assert.equal(check.ok, false);
    if (check.ok) return;
    assert.deepEqual(
      check.errors.map((e) => [e.field, e.message]),
      [
        ['colour', 'is not a declared field of this contract'],
        ['firstName', 'is required'],
        ['lastName', 'must be a string'],
        ['email', 'must be a valid email address'],
        ['startDate', 'must be a date in YYYY-MM-DD form'],
        ['status', 'must be one of ACTIVE, COMPLETED, WITHDRAWN'],
      ],
    );
  });

  it('drops blank optional fields and keeps the given ones', () => {
    const check = validatePayload(INTERNS_CONTRACT, internPayload({ mentor: '' }));
    assert.ok(check.ok);
    assert.equal('mentor' in check.payload, false);
    const withMentor = validatePayload(INTERNS_CONTRACT, internPayload({ mentor: 'Grace' }));
    assert.ok(withMentor.ok);
    assert.equal(withMentor.payload.mentor, 'Grace');
  });

  it('joins composite natural keys with | and refuses | inside their parts', () => {
    const contract = createOnly('orders');
    const ok = validatePayload(contract, { region: 'eu', orderNo: '17' });
    assert.ok(ok.ok);
    assert.equal(naturalKeyOf(contract, ok.payload), 'eu|17');
    const bad = validatePayload(contract, { region: 'e|u', orderNo: '17' });
    assert.equal(bad.ok, false);
    assert.deepEqual(bad.ok ? [] : bad.errors.map((e) => e.field), ['region']);
  });

  it('refuses a payload that is not an object', () => {
    for (const input of [null, [], 'x', 3])
      assert.equal(validatePayload(INTERNS_CONTRACT, input).ok, false);
  });
});

describe('envelope', () => {
  const identity = () => ({
    recordId: randomUUID(),
    traceId: randomUUID(),
    occurredAt: new Date('2025-01-02T03:04:05.678Z'),
  });

  it('carries the fixed fields, the schemaVersion and an ISO-8601 occurredAt, and validates', () => {
    const check = validatePayload(INTERNS_CONTRACT, internPayload());
    assert.ok(check.ok);
    const envelope = buildEnvelope(INTERNS_CONTRACT, 'intern.created', check.payload, identity());
    assert.equal(envelope.schemaVersion, INTERNS_CONTRACT.schemaVersion);
    assert.equal(envelope.occurredAt, '2025-01-02T03:04:05.678Z');
    assert.equal(envelope.naturalKey, check.payload.internId);
    assert.deepEqual(envelopeViolations(INTERNS_CONTRACT, 'create', envelope), []);
    // Additional properties stay open at the envelope level.
    assert.deepEqual(envelopeViolations(INTERNS_CONTRACT, 'create', { ...envelope, extra: 1 }), []);
  });

  it('is refused by its schema when an id is not a UUID, the type is undeclared or the payload is off', () => {
    const check = validatePayload(INTERNS_CONTRACT, internPayload());
    assert.ok(check.ok);
    const envelope = buildEnvelope(INTERNS_CONTRACT, 'intern.created', check.payload, identity());
    assert.match(
      envelopeViolations(INTERNS_CONTRACT, 'create', { ...envelope, recordId: 'r-1' }).join(),
      /recordId/,
    );
    assert.match(
      envelopeViolations(INTERNS_CONTRACT, 'create', {
        ...envelope,
        recordType: 'intern.moved',
      }).join(),
      /recordType/,
    );
    assert.match(
      envelopeViolations(INTERNS_CONTRACT, 'create', {
        ...envelope,
        occurredAt: 1735787045678,
      }).join(),
      /occurredAt/,
    );
    assert.match(
      envelopeViolations(INTERNS_CONTRACT, 'create', {
        ...envelope,
        payload: { ...envelope.payload, x: 'y' },
      }).join(),
      /payload/,
    );
  });

  it('has a minimal tombstone payload: the natural-key fields only', () => {
    const check = validatePayload(INTERNS_CONTRACT, internPayload());
    assert.ok(check.ok);
    const payload = tombstonePayload(INTERNS_CONTRACT, check.payload);
    assert.deepEqual(Object.keys(payload), ['internId']);
    const envelope = buildEnvelope(INTERNS_CONTRACT, 'intern.deleted', payload, identity());
    assert.deepEqual(envelopeViolations(INTERNS_CONTRACT, 'tombstone', envelope), []);
    assert.notDeepEqual(
      envelopeViolations(INTERNS_CONTRACT, 'tombstone', { ...envelope, payload: check.payload }),
      [],
    );
  });
});
