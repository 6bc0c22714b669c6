-- Job control and retention: a deleted, cancelled or expired job keeps its row as a
-- tombstone (so it answers 410, and still counts towards its client's daily quota) while
-- its artifacts are removed. `fingerprint` (replay bytes, skin, options) finds a finished
-- identical render to reuse; several jobs may then share one video_key.
ALTER TABLE render_jobs ADD COLUMN deleted_at timestamptz;
ALTER TABLE render_jobs ADD COLUMN removal text CHECK (removal IN ('deleted', 'cancelled', 'expired'));
ALTER TABLE render_jobs ADD COLUMN fingerprint text;

CREATE INDEX render_jobs_client_recent_idx ON render_jobs (client_ip, created_at);
CREATE INDEX render_jobs_live_created_idx ON render_jobs (created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX render_jobs_reusable_idx ON render_jobs (fingerprint, finished_at DESC)
  WHERE status = 'completed' AND deleted_at IS NULL;
CREATE INDEX render_jobs_expiry_idx ON render_jobs (finished_at)
  WHERE deleted_at IS NULL AND status IN ('completed', 'failed');
CREATE INDEX render_jobs_tombstone_idx ON render_jobs (deleted_at) WHERE deleted_at IS NOT NULL;
CREATE INDEX render_jobs_video_live_idx ON render_jobs (video_key) WHERE deleted_at IS NULL;
-- When the artifacts of a tombstone were removed (a failed removal is retried).
ALTER TABLE render_jobs ADD COLUMN artifacts_purged_at timestamptz;
CREATE INDEX render_jobs_unpurged_idx ON render_jobs (deleted_at) WHERE deleted_at IS NOT NULL AND artifacts_purged_at IS NULL;
