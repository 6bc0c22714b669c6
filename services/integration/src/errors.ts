/** The integration platform's coded errors (one registry per package): status and client-facing detail. */
import { defineErrors } from '@platform/core';

export const integrationErrors = defineErrors({
  PAYLOAD_INVALID: { status: 400, detail: 'payload fails contract validation' },
  CONTRACT_INVALID: { status: 400, detail: 'contract definition is invalid' },
  ADAPTER_CONFIG_INVALID: {
    status: 400,
    detail: 'attachment config fails the adapter type config schema',
  },
  ADAPTER_TYPE_UNKNOWN: {
    status: 400,
    detail: 'unknown adapter type: no adapter of that type has registered',
  },
  ADAPTER_TYPE_INVALID: { status: 400, detail: 'adapter type descriptor is invalid' },
  TEXT_UNSTORABLE: {
    status: 400,
    detail: 'text must not contain a NUL character or an unpaired surrogate',
  },
  CONTRACT_NOT_FOUND: { status: 404, detail: 'unknown contractId' },
  CONTRACT_VERSION_NOT_FOUND: { status: 404, detail: 'unknown contract version' },
  RECORD_NOT_FOUND: { status: 404, detail: 'record does not exist' },
  ADAPTER_TYPE_NOT_FOUND: { status: 404, detail: 'unknown adapter type' },
  ATTACHMENT_NOT_FOUND: { status: 404, detail: 'unknown attachment' },
  DEAD_LETTER_NOT_FOUND: { status: 404, detail: 'unknown dead letter' },
  CONTRACT_EXISTS: {
    status: 409,
    detail: 'contract already exists; edits are versioned updates (PUT /contracts/{contractId})',
  },
  CONTRACT_INCOMPATIBLE: { status: 409, detail: 'incompatible contract change (BACKWARD mode)' },
  CONTRACT_VERSION_CONFLICT: {
    status: 409,
    detail: 'schemaVersion must be the current version plus one',
  },
  NO_UPDATE_TYPE: { status: 409, detail: 'contract declares no update-style record type' },
  NO_TOMBSTONE_TYPE: { status: 409, detail: 'contract declares no tombstone record type' },
  RECORD_EXISTS: {
    status: 409,
    detail: 'a record with this natural key already exists; use PUT to change it',
  },
  ATTACHMENT_EXISTS: {
    status: 409,
    detail: 'an attachment with this contract, adapter type and config already exists',
  },
  CONSUMER_GROUP_TAKEN: {
    status: 409,
    detail: 'consumer group already used by another adapter type',
  },
  RECORD_TOO_LARGE: {
    status: 413,
    detail:
      "record too large: its envelope exceeds the broker's message limit; nothing was published",
  },
  DEAD_LETTER_NOT_REPLAYABLE: {
    status: 422,
    detail:
      'the dead-lettered message is not an envelope of a registered contract; it cannot be replayed',
  },
  ENVELOPE_INVALID: {
    status: 500,
    detail: 'the built envelope failed schema validation; nothing was published',
  },
  UPSTREAM_UNREACHABLE: { status: 502, detail: 'upstream service unreachable' },
  BROKER_UNAVAILABLE: { status: 503, detail: 'broker unavailable; nothing was published' },
  DATABASE_UNAVAILABLE: { status: 503, detail: 'database unavailable; try again shortly' },
});
