-- A changed or deleted job announces itself (NOTIFY render_job_changed, payload: its id),
-- but only in a session that asked for it (render.announce_job_changes = 'on'). The
-- embedded engine asks: it has one session, in this process, which is then the only
-- writer, and it delivers a notification before its next statement runs, so a process
-- can answer active jobs from memory and drop an entry before any later read could see
-- it (jobs/live-job-cache.ts). Sessions on PostgreSQL leave it off: a NOTIFY serializes
-- the commits that send one, and a cache fed by notifications from other instances would
-- lag their commits.
CREATE FUNCTION render_job_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('render.announce_job_changes', true) = 'on' THEN
    PERFORM pg_notify('render_job_changed', OLD.id::text);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER render_job_changed AFTER UPDATE OR DELETE ON render_jobs
  FOR EACH ROW EXECUTE FUNCTION render_job_changed();
