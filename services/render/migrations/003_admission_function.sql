-- Admission's transaction in one round trip. Under the address's advisory lock it counts
-- the address's usage again and, within the limits, writes the job, its first outbox
-- event and the dispatchers' wake-up (delivered at commit). Called as one statement
-- outside an explicit transaction, it commits before the caller answers 202, as the
-- BEGIN / lock / count / insert / COMMIT sequence did in five round trips.
--
-- What one address has used (the two per-address rules): its active jobs, its jobs
-- created in the last 24 hours (tombstones count: deleting a job gives no quota back; a
-- cancelled job is no longer active), and when the oldest of those leaves the window.
CREATE FUNCTION render_address_usage(p_client_ip text)
RETURNS TABLE (active integer, last_day integer, resets_at timestamptz)
LANGUAGE sql STABLE AS $$
  SELECT count(*) FILTER (WHERE status IN ('queued', 'downloading', 'rendering'))::int,
         count(*) FILTER (WHERE created_at > now() - interval '1 day')::int,
         min(created_at) FILTER (WHERE created_at > now() - interval '1 day') + interval '1 day'
    FROM render_jobs
   WHERE client_ip = p_client_ip
     AND (status IN ('queued', 'downloading', 'rendering') OR created_at > now() - interval '1 day')
$$;

-- `inserted` is false when the usage counted under the lock is at a limit; the usage is
-- returned either way so the caller words the refusal.
CREATE FUNCTION render_admit_job(
  p_lock_key bigint,
  p_max_active integer,
  p_daily_quota integer,
  p_id uuid,
  p_skin text,
  p_options jsonb,
  p_client_ip text,
  p_replay_key text,
  p_replay_info jsonb,
  p_beatmap_md5 text,
  p_fingerprint text,
  p_channel text)
RETURNS TABLE (active integer, last_day integer, resets_at timestamptz, inserted boolean)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  used record;
BEGIN
  PERFORM pg_advisory_xact_lock(p_lock_key);
  -- A new statement after the lock: in a volatile function each one takes a fresh snapshot
  -- (READ COMMITTED), so the count sees every job committed by the lock's previous holder.
  SELECT u.active, u.last_day, u.resets_at INTO used FROM render_address_usage(p_client_ip) u;
  IF used.active >= p_max_active OR used.last_day >= p_daily_quota THEN
    RETURN QUERY SELECT used.active, used.last_day, used.resets_at, false;
    RETURN;
  END IF;
  INSERT INTO render_jobs (id, status, skin, options, client_ip, replay_key, replay_info, beatmap_md5, fingerprint)
  VALUES (p_id, 'queued', p_skin, p_options, p_client_ip, p_replay_key, p_replay_info, p_beatmap_md5, p_fingerprint);
  INSERT INTO render_outbox (job_id) VALUES (p_id);
  PERFORM pg_notify(p_channel, p_id::text);
  RETURN QUERY SELECT used.active, used.last_day, used.resets_at, true;
END
$$;
