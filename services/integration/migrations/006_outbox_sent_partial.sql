-- The window's index holds sent rows only (issue 11): every query on it bounds `sent_at`
-- (the reconciler's window, the prune), which implies `sent_at IS NOT NULL`, so the rows
-- still unsent — every row at its insert — no longer add an entry (a NULL one, all of
-- them on the same last leaf page) to it.
CREATE INDEX IF NOT EXISTS intake_outbox_sent_at ON intake_outbox (sent_at) WHERE sent_at IS NOT NULL;
DROP INDEX IF EXISTS intake_outbox_sent;
