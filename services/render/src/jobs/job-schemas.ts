/** JSON schemas of the job shapes, for validation of responses and the OpenAPI document. */
import { EXTRA_RENDER_PARAMETERS_SCHEMA } from './extra-render-parameters.js';

const nullableString = { type: 'string', nullable: true } as const;
const nullableTime = { type: 'string', format: 'date-time', nullable: true } as const;

export const v1JobSchema = {
  $id: 'RenderJob',
  type: 'object',
  properties: {
    job_id: { type: 'string', format: 'uuid' },
    status: { type: 'string', enum: ['queued', 'downloading', 'rendering', 'completed', 'failed'] },
    progress: { type: 'number', minimum: 0, maximum: 100 },
    skin: { type: 'string' },
    map_title: nullableString,
    beatmap_md5: { type: 'string' },
    error: nullableString,
    options: {
      type: 'object',
      properties: {
        resolution: { type: 'string', enum: ['1080p', '4k'] },
        bg_dim: { type: 'number' },
        motion_blur: { type: 'boolean' },
        storyboard: { type: 'boolean' },
        video: { type: 'boolean' },
        snaking_in: { type: 'boolean' },
        snaking_out: { type: 'boolean' },
        hit_error_meter: { type: 'boolean' },
        key_overlay: { type: 'boolean' },
        ...EXTRA_RENDER_PARAMETERS_SCHEMA,
      },
    },
    replay: {
      type: 'object',
      properties: {
        player_name: { type: 'string' },
        mods: { type: 'string' },
        score: { type: 'integer' },
        max_combo: { type: 'integer' },
        perfect: { type: 'boolean' },
        accuracy: { type: 'number' },
        count_300: { type: 'integer' },
        count_100: { type: 'integer' },
        count_50: { type: 'integer' },
        count_geki: { type: 'integer' },
        count_katu: { type: 'integer' },
        count_miss: { type: 'integer' },
        played_at: { type: 'string' },
      },
    },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    started_at: nullableTime,
    finished_at: nullableTime,
    links: {
      type: 'object',
      properties: {
        self: { type: 'string' },
        view: { type: 'string' },
        replay: { type: 'string' },
        log: { type: 'string' },
        video: { type: 'string' },
        thumbnail: { type: 'string' },
      },
    },
  },
} as const;

export const legacyStatusSchema = {
  $id: 'LegacyJobStatus',
  type: 'object',
  properties: {
    job_id: { type: 'string' },
    status: { type: 'string' },
    percent: { type: 'number' },
    skin: { type: 'string' },
    map_title: nullableString,
    created_at: { type: 'number' },
    last_updated: { type: 'number' },
    error: nullableString,
  },
} as const;

/** The path parameter of every route under `/v1/jobs/{job_id}` and the player page. */
export const jobIdParams = {
  type: 'object',
  properties: { job_id: { type: 'string' } },
  required: ['job_id'],
} as const;
