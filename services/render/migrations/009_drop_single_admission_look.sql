-- Admission's single-address look (migration 004) has had no caller since the looks went
-- in batches (migration 008, render_admission_looks). Dropped so the schema holds only
-- what the service runs; an instance older than migration 008 would still call it, so
-- none may run against a database migrated to this one.
DROP FUNCTION IF EXISTS render_admission_look(text, integer, integer);
