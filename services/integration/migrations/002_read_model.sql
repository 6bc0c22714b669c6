-- The submission service's own read model (spec rule 7): the current state of every
-- record per (contract, natural key). `state` is pending while a publish is in flight
-- (never listed), active once published, deleted after a tombstone.
CREATE TABLE IF NOT EXISTS submitted_records (
  contract_id text NOT NULL,
  natural_key text NOT NULL,
  record_id uuid NOT NULL,
  record_type text NOT NULL,
  schema_version integer NOT NULL,
  payload jsonb NOT NULL,
  occurred_at timestamptz NOT NULL,
  trace_id uuid NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'active', 'deleted')),
  revision integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (contract_id, natural_key)
);
CREATE INDEX IF NOT EXISTS submitted_records_listing ON submitted_records (contract_id, created_at, natural_key);
