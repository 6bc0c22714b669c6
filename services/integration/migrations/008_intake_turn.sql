-- One round trip and one commit a turn of the submission service (issue 11): the events
-- published since the last turn marked sent, then this turn's creates reserved and queued,
-- in one call, where each was a statement (and a transaction) of its own. The two are the
-- statements `markSent` and `reserveCreates` sent before (outbox.ts, read-model.ts), now
-- kept here only, run in that order; each sees what the one before it wrote.
--
-- Marking sent is planned each call (EXECUTE): with the positions' array known, the
-- planner joins them to the outbox and the read model by key; a plan cached while the
-- tables were small joined them by sequential scans and kept doing so as they grew. The
-- reserve's plan does not depend on the tables' size (inserts; conflicts found by the
-- primary key): cached once a session, as its prepared statement was.
CREATE OR REPLACE FUNCTION intake_turn(
  p_sent_ids uuid[],
  p_sent_partitions integer[],
  p_sent_offsets bigint[],
  p_sent_dedupe_ids text[],
  p_restart_window boolean,
  p_creates jsonb,
  p_owner text
) RETURNS TABLE (record_id text, inserted boolean, revision integer)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  IF cardinality(p_sent_ids) > 0 THEN
    -- The relay (publishing events queued any time ago) starts their reconciler window
    -- now; a request's events keep the one their queuing started, so their outbox row's
    -- update stays HOT (migration 007).
    EXECUTE
      'WITH sent AS (
         UPDATE intake_outbox o SET sent_at = now(), partition = r.partition, "offset" = r."offset",
           dedupe_id = COALESCE(r.dedupe_id, o.dedupe_id)'
           || CASE WHEN p_restart_window THEN ', window_at = now()' ELSE '' END || '
         FROM unnest($1, $2, $3, $4) AS r(record_id, partition, "offset", dedupe_id)
         WHERE o.record_id = r.record_id
         RETURNING o.seq, o.record_id, o.contract_id, o.natural_key, o.kind, o.envelope, o.revision
       ), dequeued AS (DELETE FROM intake_outbox_unsent u USING sent WHERE u.seq = sent.seq)
       UPDATE submitted_records s SET
         state = CASE WHEN sent.kind = ''delete'' THEN ''deleted'' ELSE ''active'' END,
         record_id = sent.record_id,
         record_type = sent.envelope->>''recordType'',
         schema_version = (sent.envelope->>''schemaVersion'')::integer,
         payload = CASE WHEN sent.kind = ''delete'' THEN s.payload ELSE sent.envelope->''payload'' END,
         occurred_at = (sent.envelope->>''occurredAt'')::timestamptz,
         trace_id = (sent.envelope->>''traceId'')::uuid,
         revision = sent.revision,
         updated_at = now()
       FROM sent
       WHERE s.contract_id = sent.contract_id AND s.natural_key = sent.natural_key
         AND (s.revision < sent.revision OR (s.revision = sent.revision AND s.record_id = sent.record_id))'
      USING p_sent_ids, p_sent_partitions, p_sent_offsets, p_sent_dedupe_ids;
  END IF;
  IF p_creates IS NULL THEN
    RETURN;
  END IF;
  -- Per create: `inserted` (a new key, revision 1) or not (a deleted key taken again, its
  -- revision goes on); a key held by an active or pending record returns no row.
  RETURN QUERY
    WITH r AS (SELECT e->>'contractId' AS contract_id, e->>'naturalKey' AS natural_key, (e->>'recordId')::uuid AS record_id,
       e->>'recordType' AS record_type, (e->>'schemaVersion')::integer AS schema_version, e->'payload' AS payload,
       (e->>'occurredAt')::timestamptz AS occurred_at, (e->>'traceId')::uuid AS trace_id, topic, e AS envelope
       FROM jsonb_to_recordset(p_creates) AS j(topic text, e jsonb)),
     taken AS (
       INSERT INTO submitted_records AS t (contract_id, natural_key, record_id, record_type, schema_version, payload, occurred_at, trace_id, state)
       SELECT r.contract_id, r.natural_key, r.record_id, r.record_type, r.schema_version, r.payload, r.occurred_at, r.trace_id, 'pending'
       FROM r
       ON CONFLICT (contract_id, natural_key) DO UPDATE SET record_id = EXCLUDED.record_id, record_type = EXCLUDED.record_type,
         schema_version = EXCLUDED.schema_version, payload = EXCLUDED.payload, occurred_at = EXCLUDED.occurred_at,
         trace_id = EXCLUDED.trace_id, state = 'pending', revision = t.revision + 1, created_at = now(), updated_at = now()
       WHERE t.state = 'deleted'
       RETURNING t.record_id, (t.xmax = 0) AS inserted, t.revision
     ), queued AS (
       INSERT INTO intake_outbox (record_id, contract_id, natural_key, kind, topic, envelope, revision, owner)
       SELECT r.record_id, r.contract_id, r.natural_key, 'create', r.topic, r.envelope, taken.revision, p_owner
       FROM taken JOIN r ON r.record_id = taken.record_id
       RETURNING seq
     ), unsent AS (INSERT INTO intake_outbox_unsent (seq) SELECT seq FROM queued)
     SELECT taken.record_id::text, taken.inserted, taken.revision FROM taken;
END
$$;
