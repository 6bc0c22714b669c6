-- Admission's transaction for several submissions in one statement (those of one
-- event-loop turn, admission/admissions.ts): one round trip and one commit for all of
-- them instead of one each. The same rules as render_admit_job (migration 003), which
-- stays for a batch that fails (each of its submissions is then admitted alone).
--
-- Every address's advisory lock is taken first, in ascending key order, so two batches
-- (on any instances) can never wait for each other in a cycle; a single render_admit_job
-- holds one lock and cannot be in one either. Then each submission in the order given:
-- its address's usage counted again (a new statement: it sees every job committed by a
-- lock's previous holder, and the jobs this batch wrote before it, so two submissions of
-- one address in a batch are counted one after the other), and within the limits its
-- job, outbox event and the dispatchers' wake-up. A refused submission writes nothing
-- and undoes nothing; one row per submission, `n` its place in the arrays (from 1).
CREATE FUNCTION render_admit_jobs(
  p_lock_keys bigint[],
  p_max_active integer,
  p_daily_quota integer,
  p_ids uuid[],
  p_skins text[],
  p_options jsonb[],
  p_client_ips text[],
  p_replay_keys text[],
  p_replay_infos jsonb[],
  p_beatmap_md5s text[],
  p_fingerprints text[],
  p_channel text)
RETURNS TABLE (n integer, active integer, last_day integer, resets_at timestamptz, inserted boolean)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_key bigint;
  used record;
BEGIN
  FOR v_key IN SELECT DISTINCT k FROM unnest(p_lock_keys) AS k ORDER BY k LOOP
    PERFORM pg_advisory_xact_lock(v_key);
  END LOOP;
  FOR i IN 1 .. coalesce(array_length(p_ids, 1), 0) LOOP
    SELECT u.active, u.last_day, u.resets_at INTO used FROM render_address_usage(p_client_ips[i]) u;
    IF used.active >= p_max_active OR used.last_day >= p_daily_quota THEN
      RETURN QUERY SELECT i, used.active, used.last_day, used.resets_at, false;
      CONTINUE;
    END IF;
    INSERT INTO render_jobs (id, status, skin, options, client_ip, replay_key, replay_info, beatmap_md5, fingerprint)
    VALUES (p_ids[i], 'queued', p_skins[i], p_options[i], p_client_ips[i], p_replay_keys[i], p_replay_infos[i],
            p_beatmap_md5s[i], p_fingerprints[i]);
    INSERT INTO render_outbox (job_id) VALUES (p_ids[i]);
    PERFORM pg_notify(p_channel, p_ids[i]::text);
    RETURN QUERY SELECT i, used.active, used.last_day, used.resets_at, true;
  END LOOP;
END
$$;
