-- Marking an event sent becomes a HOT update of its outbox row (issue 11): no index holds
-- a column that update sets. Before, `sent_at` was in two indexes (the unsent queue's
-- partial index and the window's), so every mark-sent wrote a new ~1 kB row version and
-- an entry in each of the table's four indexes: the intake's most expensive statement.
--
-- The unsent events are now a queue of their own: a row here from the event's queuing to
-- its mark-sent (in the statements that write and mark the event), which the relay reads.
-- It takes the name of the partial index it replaces.
DROP INDEX IF EXISTS intake_outbox_unsent;
CREATE TABLE IF NOT EXISTS intake_outbox_unsent (seq bigint PRIMARY KEY);
INSERT INTO intake_outbox_unsent (seq)
  SELECT seq FROM intake_outbox WHERE sent_at IS NULL
  ON CONFLICT DO NOTHING;
-- The reconciler's window starts at `window_at`: the event's queuing, which a request
-- marks sent milliseconds later, or its publish by the relay or the reconciler (which set
-- it again). The window's queries and the prune find their rows by this index instead of
-- one on `sent_at`.
ALTER TABLE intake_outbox ADD COLUMN IF NOT EXISTS window_at timestamptz NOT NULL DEFAULT now();
UPDATE intake_outbox SET window_at = COALESCE(sent_at, created_at);
CREATE INDEX IF NOT EXISTS intake_outbox_window ON intake_outbox (window_at);
DROP INDEX IF EXISTS intake_outbox_sent_at;
-- Room on each page for a row's sent version (HOT needs it on the same page), as the
-- read model has (migration 005). Applies to pages written from now on.
ALTER TABLE intake_outbox SET (fillfactor = 50);
