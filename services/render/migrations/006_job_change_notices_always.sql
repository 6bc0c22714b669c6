-- Every change or deletion of a job announces itself (NOTIFY render_job_changed, its id),
-- in every session: API instances on PostgreSQL now answer active jobs from memory too
-- (jobs/live-job-cache.ts), so a write by any instance, worker or older version must
-- reach their caches. The cost is a NOTIFY per job update (progress reports, status
-- changes): PostgreSQL serializes the commits that notify, which is far below the rate
-- at which jobs change. Inserts do not notify: nothing can be cached for an id before it
-- exists.
CREATE OR REPLACE FUNCTION render_job_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('render_job_changed', OLD.id::text);
  RETURN NULL;
END
$$;
