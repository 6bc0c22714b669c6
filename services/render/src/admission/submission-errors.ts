/** What a submission can be refused with, for the route schemas' documented answers. */
import { errorResponses } from '@platform/core';
import { renderErrors } from '../errors.js';

/** Every refusal of a submission, v1 and legacy alike (the legacy route delegates). */
export const SUBMISSION_ERRORS = errorResponses(renderErrors.definitions, [
  'RENDER_REPLAY_EXTENSION',
  'RENDER_REPLAY_EMPTY',
  'MALFORMED_FORM',
  'RENDER_REPLAY_TOO_LARGE',
  'RENDER_REPLAY_INVALID',
  'RENDER_VALIDATION',
  'RATE_LIMITED',
  'UPLOADS_PER_ADDRESS',
  'RENDER_TOO_MANY_ACTIVE',
  'DAILY_QUOTA',
  'RENDER_STORAGE_FAILED',
  'STORAGE_UNAVAILABLE',
  'DATABASE_UNAVAILABLE',
  'RENDER_QUEUE_FULL',
  'RENDER_CAPACITY',
  'UPLOADS_BUSY',
]);
