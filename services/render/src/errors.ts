/** Every coded error of the render service, with its status and the spec's detail text. */
import { defineErrors } from '@platform/core';

export const renderErrors = defineErrors({
  RENDER_REPLAY_EXTENSION: { status: 400, detail: 'File must be an osu! replay (.osr) file.' },
  RENDER_REPLAY_EMPTY: { status: 400, detail: 'Uploaded replay file is empty.' },
  RENDER_REPLAY_TOO_LARGE: { status: 413, detail: 'Replay file exceeds maximum size of 50MB.' },
  RENDER_REPLAY_INVALID: {
    status: 415,
    detail: 'Invalid replay file. The structure is corrupted or unsupported.',
  },
  RENDER_VALIDATION: { status: 422, detail: 'validation error' },
  MALFORMED_FORM: { status: 400, detail: 'Malformed multipart/form-data body.' },
  RATE_LIMITED: { status: 429, detail: 'Rate limit exceeded: 5 per 1 minute' },
  RENDER_TOO_MANY_ACTIVE: { status: 429, detail: 'You already have 2 active render jobs.' },
  RENDER_STORAGE_FAILED: {
    status: 500,
    detail: 'The replay could not be stored. Please try again.',
  },
  RENDER_QUEUE_FULL: {
    status: 503,
    detail: 'The render queue is currently full. Please try again later.',
  },
  RENDER_CAPACITY: { status: 503, detail: 'The render infrastructure is at maximum capacity.' },
  DATABASE_UNAVAILABLE: {
    status: 503,
    detail: 'The database is unavailable. Please try again shortly.',
  },
  STORAGE_UNAVAILABLE: {
    status: 503,
    detail: 'The replay store cannot write: the disk is full or failing. Please try again shortly.',
  },
  REDIS_UNAVAILABLE: { status: 503, detail: 'Redis is unavailable. Please try again shortly.' },
  UPLOADS_BUSY: {
    status: 503,
    detail: 'The server is receiving too many uploads. Please try again shortly.',
  },
  UPLOADS_PER_ADDRESS: { status: 429, detail: 'You already have 2 uploads in progress.' },
  JOB_NOT_FOUND: { status: 404, detail: 'Job not found.' },
  EVENT_STREAMS_BUSY: {
    status: 503,
    detail: 'Too many live event streams are open. Please try again shortly.',
  },
  EVENT_STREAMS_PER_ADDRESS: {
    status: 429,
    detail: 'You already have 4 live event streams open.',
  },
  JOB_GONE: { status: 410, detail: 'This job was deleted.' },
  JOB_NOT_YOURS: {
    status: 403,
    detail: 'Only the client that submitted this job, or an operator, can delete it.',
  },
  DAILY_QUOTA: { status: 429, detail: 'Daily render quota exceeded: 50 per day.' },
  SKIN_EXTENSION: { status: 400, detail: 'File must be an osu! skin (.osk) archive.' },
  SKIN_TOO_LARGE: { status: 413, detail: 'Skin file exceeds maximum size of 200MB.' },
  SKIN_NOT_ZIP: { status: 415, detail: 'Skin file is not a ZIP archive.' },
  SKIN_INVALID: { status: 422, detail: 'Skin archive was refused.' },
  SKIN_EXISTS: { status: 409, detail: 'A skin with this name already exists.' },
  ARTIFACT_FORBIDDEN: { status: 403, detail: 'Invalid artifact key.' },
  ARTIFACT_NOT_FOUND: { status: 404, detail: 'Artifact not found.' },
  CALLBACK_DISABLED: { status: 403, detail: 'Worker callbacks are not enabled on this server.' },
  CALLBACK_UNAUTHORIZED: { status: 401, detail: 'Invalid or stale callback signature.' },
  CALLBACK_CONFLICT: { status: 409, detail: 'The job is not in a state that accepts this report.' },
});
