-- The revision a key's row held before the transaction that last changed it. A batch's
-- read sets the row to the batch's newest revision and returns this one in the same
-- upsert (RETURNING cannot name the row as it was), so each key's row is written once a
-- batch, not made or locked in the read and written again with the data (issue 11).
-- Meaningful only to the transaction that wrote it.
ALTER TABLE relational_key_revisions ADD COLUMN IF NOT EXISTS revision_before bigint NOT NULL DEFAULT 0;
