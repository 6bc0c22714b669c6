-- The newest revision of every natural key an attachment applied (create, update or
-- tombstone), kept after a hard delete: an event is applied only when its revision is
-- newer, so a late update cannot bring back a deleted row and a re-create after a
-- (soft) delete is applied.
CREATE TABLE IF NOT EXISTS relational_key_revisions (
  attachment_id text NOT NULL,
  natural_key text NOT NULL,
  revision bigint NOT NULL,
  PRIMARY KEY (attachment_id, natural_key)
);
