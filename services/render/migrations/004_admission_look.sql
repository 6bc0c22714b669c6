-- Admission's first look and a job's read as PL/pgSQL functions, whose query plans are
-- kept for the session: a plain statement is parsed and planned again on every call,
-- which is most of a query's cost on the embedded engine (PGlite runs the planner in
-- this process), and part of PostgreSQL's.
--
-- The global load, each figure counted only up to its limit (admission compares it with
-- the limit and nothing else, so the answer is the same; the cost no longer grows with
-- the queue), and the address's usage, in one call.
CREATE FUNCTION render_admission_look(p_client_ip text, p_max_queued integer, p_max_rendering integer)
RETURNS TABLE (queued integer, rendering integer, active integer, last_day integer, resets_at timestamptz)
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN QUERY
    SELECT (SELECT count(*) FROM (SELECT 1 FROM render_jobs j WHERE j.status = 'queued' LIMIT p_max_queued) q)::int,
           (SELECT count(*) FROM (SELECT 1 FROM render_jobs j WHERE j.status IN ('downloading', 'rendering')
                                   LIMIT p_max_rendering) r)::int,
           u.active, u.last_day, u.resets_at
      FROM render_address_usage(p_client_ip) u;
END
$$;

CREATE FUNCTION render_job(p_id uuid)
RETURNS SETOF render_jobs
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN QUERY SELECT * FROM render_jobs WHERE id = p_id;
END
$$;
