-- Dead letters read off `platform.dlq` by the control plane's consumer group. The
-- position of the dead letter itself (dlq_topic, dlq_partition, dlq_offset) is unique,
-- so a redelivered dead letter is stored once.
CREATE TABLE IF NOT EXISTS dead_letters (
  id uuid PRIMARY KEY,
  dlq_topic text NOT NULL,
  dlq_partition integer NOT NULL,
  dlq_offset bigint NOT NULL,
  original_topic text NOT NULL,
  original_partition integer NOT NULL,
  original_offset bigint NOT NULL,
  original_key text NOT NULL,
  contract_id text,
  original_payload jsonb,
  error_type text NOT NULL,
  error_message text NOT NULL,
  failed_adapter text NOT NULL,
  attempt_count integer NOT NULL,
  quarantined_at timestamptz NOT NULL,
  trace_id text,
  replayed boolean NOT NULL DEFAULT false,
  replayed_at timestamptz,
  received_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (dlq_topic, dlq_partition, dlq_offset)
);
CREATE INDEX IF NOT EXISTS dead_letters_by_time ON dead_letters (quarantined_at DESC);
