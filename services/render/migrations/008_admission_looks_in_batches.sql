-- Admission's first look for several submissions in one statement (those of one
-- event-loop turn, admission/admission-looks.ts): the global load is counted once for
-- all of them (with MAX_QUEUED high, counting the queue was most of a look's cost, and on
-- the embedded engine that cost is this process's), each address's usage per address,
-- answered in the order given. The same figures as render_admission_look (migration 004).
CREATE FUNCTION render_admission_looks(p_client_ips text[], p_max_queued integer, p_max_rendering integer)
RETURNS TABLE (n integer, queued integer, rendering integer, active integer, last_day integer, resets_at timestamptz)
LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_queued integer;
  v_rendering integer;
BEGIN
  SELECT count(*)::int INTO v_queued
    FROM (SELECT 1 FROM render_jobs j WHERE j.status = 'queued' LIMIT p_max_queued) q;
  SELECT count(*)::int INTO v_rendering
    FROM (SELECT 1 FROM render_jobs j WHERE j.status IN ('downloading', 'rendering') LIMIT p_max_rendering) r;
  RETURN QUERY
    SELECT a.n::int, v_queued, v_rendering, u.active, u.last_day, u.resets_at
      FROM unnest(p_client_ips) WITH ORDINALITY AS a(ip, n)
      CROSS JOIN LATERAL render_address_usage(a.ip) u
     ORDER BY a.n;
END
$$;
