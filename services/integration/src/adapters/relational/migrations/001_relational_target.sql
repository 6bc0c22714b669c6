-- Targets of the relational adapter (spec 2.6): the generic landing table, the shaped
-- interns table and the append-only audit log. Per-contract expression indexes on
-- queryable fields are created at attachment time, not here.
CREATE TABLE IF NOT EXISTS records (
  record_id uuid PRIMARY KEY,
  contract_id text NOT NULL,
  record_type text NOT NULL,
  natural_key text NOT NULL,
  payload jsonb NOT NULL,
  occurred_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  UNIQUE (contract_id, natural_key)
);

CREATE TABLE IF NOT EXISTS interns (
  record_id uuid NOT NULL UNIQUE,
  intern_id text NOT NULL UNIQUE,
  first_name text NOT NULL,
  last_name text NOT NULL,
  email text NOT NULL,
  college text NOT NULL,
  department text NOT NULL,
  mentor text,
  start_date date NOT NULL,
  status text NOT NULL,
  created_at timestamptz NOT NULL,
  deleted_at timestamptz
);

CREATE TABLE IF NOT EXISTS audit_log (
  audit_id bigserial PRIMARY KEY,
  attachment_id text NOT NULL,
  contract_id text NOT NULL,
  record_id uuid NOT NULL,
  trace_id uuid NOT NULL,
  record_type text NOT NULL,
  lifecycle text NOT NULL,
  natural_key text NOT NULL,
  schema_version integer NOT NULL,
  occurred_at timestamptz NOT NULL,
  applied boolean NOT NULL,
  payload jsonb NOT NULL,
  logged_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (attachment_id, record_id)
);

CREATE INDEX IF NOT EXISTS audit_log_contract_idx ON audit_log (contract_id, natural_key, occurred_at);

CREATE OR REPLACE FUNCTION audit_log_append_only() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only';
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER IF EXISTS audit_log_no_change ON audit_log;

CREATE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
