-- Several jobs by id in one statement: status reads that miss the process's caches in
-- the same event-loop turn share it (jobs/job-reader.ts). A PL/pgSQL function, so the
-- session keeps its plan (as render_job, migration 004).
CREATE FUNCTION render_jobs_by_id(p_ids uuid[])
RETURNS SETOF render_jobs
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN QUERY SELECT * FROM render_jobs WHERE id = ANY(p_ids);
END
$$;
