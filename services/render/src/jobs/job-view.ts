/**
 * The two public shapes of a job: the v1 object (ISO 8601 times, links to artifacts) and
 * the legacy status object (dashless id, `complete`, `percent`, Unix-float times).
 */
import { extraRenderParametersView } from './extra-render-parameters.js';
import type { JobRemoval, JobRow } from './job-store.js';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX_PATTERN = /^[0-9a-f]{32}$/i;

/** Accepts a dashed UUID or its 32-hex legacy form; undefined for anything else. */
export function parseJobId(id: string): string | undefined {
  if (UUID_PATTERN.test(id)) return id.toLowerCase();
  if (HEX_PATTERN.test(id)) {
    const h = id.toLowerCase();
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
  return undefined;
}

export function legacyJobId(id: string): string {
  return id.replaceAll('-', '');
}

export function artifactKeys(id: string) {
  return {
    replay: `replays/${id}.osr`,
    video: `videos/${id}.mp4`,
    thumbnail: `thumbnails/${id}.jpg`,
    log: `logs/${id}.log`,
  };
}

const artifactPath = (key: string) => `/v1/artifacts/${key}`;

export interface JobLinks {
  self: string;
  view: string;
  replay: string;
  log?: string;
  video?: string;
  thumbnail?: string;
}

export function jobLinks(job: JobRow): JobLinks {
  const links: JobLinks = {
    self: `/v1/jobs/${job.id}`,
    view: `/view/${job.id}`,
    replay: artifactPath(job.replay_key),
  };
  if (job.log_key) links.log = artifactPath(job.log_key);
  if (job.video_key) links.video = artifactPath(job.video_key);
  if (job.thumbnail_key) links.thumbnail = artifactPath(job.thumbnail_key);
  return links;
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
const unix = (d: Date | null) => (d ? new Date(d).getTime() / 1000 : null);

export function toV1Job(job: JobRow) {
  const o = job.options;
  return {
    job_id: job.id,
    status: job.status,
    progress: Number(job.progress),
    skin: job.skin,
    map_title: job.map_title,
    beatmap_md5: job.beatmap_md5,
    error: job.error,
    options: {
      resolution: o.resolution,
      bg_dim: o.bgDim,
      motion_blur: o.motionBlur,
      storyboard: o.storyboard,
      video: o.video,
      snaking_in: o.snakingIn,
      snaking_out: o.snakingOut,
      hit_error_meter: o.hitErrorMeter,
      key_overlay: o.keyOverlay,
      ...extraRenderParametersView(o),
    },
    replay: {
      player_name: job.replay_info.playerName,
      mods: job.replay_info.mods,
      score: job.replay_info.score,
      max_combo: job.replay_info.maxCombo,
      perfect: job.replay_info.perfect,
      accuracy: job.replay_info.accuracy,
      count_300: job.replay_info.n300,
      count_100: job.replay_info.n100,
      count_50: job.replay_info.n50,
      count_geki: job.replay_info.gekis,
      count_katu: job.replay_info.katus,
      count_miss: job.replay_info.misses,
      played_at: job.replay_info.playedAt,
    },
    created_at: iso(job.created_at),
    updated_at: iso(job.updated_at),
    started_at: iso(job.started_at),
    finished_at: iso(job.finished_at),
    links: jobLinks(job),
  };
}

export function toLegacyStatus(job: JobRow) {
  return {
    job_id: legacyJobId(job.id),
    status: job.status === 'completed' ? 'complete' : job.status,
    percent: job.status === 'completed' ? 100.0 : Number(job.progress),
    skin: job.skin,
    map_title: job.map_title,
    created_at: unix(job.created_at),
    last_updated: unix(job.updated_at),
    error: job.error,
  };
}

/** The 410 detail of a tombstone. */
export function goneDetail(removal: JobRemoval, retentionDays: number): string {
  switch (removal) {
    case 'expired':
      return `This job has expired: videos and files are kept for ${retentionDays} days after a render finishes.`;
    case 'cancelled':
      return 'This job was cancelled and deleted.';
    case 'deleted':
      return 'This job was deleted.';
  }
}
