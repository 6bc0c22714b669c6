-- Render jobs and their outbox: one event per dispatch, written with the job (or by the
-- reaper when a dispatch was lost), moved to the task queue by the dispatcher.
CREATE TABLE render_jobs (
  id uuid PRIMARY KEY,
  status text NOT NULL CHECK (status IN ('queued', 'downloading', 'rendering', 'completed', 'failed')),
  progress real NOT NULL DEFAULT 0,
  skin text NOT NULL,
  options jsonb NOT NULL,
  client_ip text NOT NULL,
  replay_key text NOT NULL,
  replay_info jsonb NOT NULL,
  beatmap_md5 text NOT NULL,
  map_title text,
  error text,
  video_key text,
  thumbnail_key text,
  log_key text,
  worker_id text,
  dispatch_count integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz,
  heartbeat_at timestamptz
);

CREATE INDEX render_jobs_status_idx ON render_jobs (status);
CREATE INDEX render_jobs_client_active_idx ON render_jobs (client_ip) WHERE status IN ('queued', 'downloading', 'rendering');
CREATE INDEX render_jobs_created_idx ON render_jobs (created_at DESC, id DESC);

CREATE TABLE render_outbox (
  id bigserial PRIMARY KEY,
  job_id uuid NOT NULL REFERENCES render_jobs (id) ON DELETE CASCADE,
  kind text NOT NULL DEFAULT 'render.requested',
  created_at timestamptz NOT NULL DEFAULT now(),
  available_at timestamptz NOT NULL DEFAULT now(),
  claimed_by text,
  claimed_until timestamptz,
  dispatched_at timestamptz,
  attempts integer NOT NULL DEFAULT 0,
  last_error text
);

CREATE INDEX render_outbox_pending_idx ON render_outbox (id) WHERE dispatched_at IS NULL;
CREATE INDEX render_outbox_job_idx ON render_outbox (job_id);
