-- Offsets in the target (issue 11 item 2): per attachment and (consumer group, topic,
-- partition), the next offset to apply and the record applied just before it, written in
-- the transaction of the batch it follows. The consumer resumes there after a restart,
-- and a redelivered batch below it is skipped.
CREATE TABLE IF NOT EXISTS relational_offsets (
  attachment_id text NOT NULL,
  consumer_group text NOT NULL,
  topic text NOT NULL,
  partition integer NOT NULL,
  next_offset bigint NOT NULL,
  last_record_id text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (attachment_id, consumer_group, topic, partition)
);
