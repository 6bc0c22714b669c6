-- Offsets in the target: when the broker stored the publish of the record at
-- next_offset - 1 (ms since the epoch). A stored position skips a batch only when that
-- very publish is there again, not merely a record with its id: after a broker lost its
-- tail, the outbox publishes the lost records again and one can land at the offset it had,
-- above new records (see applied-position.ts). NULL: written before this column; such a
-- position skips nothing.
ALTER TABLE relational_offsets ADD COLUMN IF NOT EXISTS last_published_at bigint;
