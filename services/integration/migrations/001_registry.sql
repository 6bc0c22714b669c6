-- Registry of the control plane (spec section 2.4). `definition` and `config` are jsonb
-- (not json) so the uniqueness over (contract_id, adapter_type, config) compares values,
-- whatever the key order of the submitted config.
CREATE TABLE IF NOT EXISTS contracts (
  contract_id text PRIMARY KEY,
  title text NOT NULL,
  schema_version integer NOT NULL,
  definition jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Every version ever accepted, so adapters and the console can read older ones.
CREATE TABLE IF NOT EXISTS contract_versions (
  contract_id text NOT NULL REFERENCES contracts (contract_id) ON DELETE CASCADE,
  schema_version integer NOT NULL,
  definition jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (contract_id, schema_version)
);

-- Descriptors adapters PUT at start and on every refresh (heartbeat: last_seen_at).
CREATE TABLE IF NOT EXISTS adapter_types (
  adapter_type text PRIMARY KEY,
  description text NOT NULL,
  config_schema jsonb NOT NULL,
  consumer_group text NOT NULL UNIQUE,
  admin_url text,
  registered_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS adapter_attachments (
  attachment_id uuid PRIMARY KEY,
  contract_id text NOT NULL REFERENCES contracts (contract_id),
  adapter_type text NOT NULL,
  config jsonb NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (contract_id, adapter_type, config)
);
CREATE INDEX IF NOT EXISTS adapter_attachments_by_type ON adapter_attachments (adapter_type);

-- One-time set-up steps already done (the interns contract and its default attachments),
-- so an operator who disables or changes them is not overridden at the next start.
CREATE TABLE IF NOT EXISTS platform_seeds (
  name text PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now()
);
