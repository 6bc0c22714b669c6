-- The intake outbox (issue 21): every event the submission service accepts, written in
-- the same statement as its read-model change. `sent_at` is set (with the broker's
-- partition and offset) only after the broker acknowledged the publish; unsent rows are
-- published by the relay (their request died), sent rows of the last few minutes are
-- compared with the broker by the reconciler and published again when the broker lost
-- them (a JetStream power loss drops acknowledged writes it had not fsynced yet).
CREATE TABLE IF NOT EXISTS intake_outbox (
  seq bigserial PRIMARY KEY,
  record_id uuid NOT NULL UNIQUE,
  contract_id text NOT NULL,
  natural_key text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('create', 'update', 'delete')),
  topic text NOT NULL,
  envelope jsonb NOT NULL,
  revision integer NOT NULL,
  owner text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz,
  partition integer,
  "offset" bigint,
  -- The broker de-duplication id of the last publish (the record id; another one when the
  -- broker still remembered the id of a record it had lost).
  dedupe_id text
);
CREATE INDEX IF NOT EXISTS intake_outbox_unsent ON intake_outbox (seq) WHERE sent_at IS NULL;
CREATE INDEX IF NOT EXISTS intake_outbox_sent ON intake_outbox (sent_at);
CREATE INDEX IF NOT EXISTS intake_outbox_key ON intake_outbox (contract_id, natural_key, revision);
