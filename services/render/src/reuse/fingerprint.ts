/**
 * What makes two submissions the same render: the replay's bytes, the skin (names are
 * unique case-insensitively and never overwritten) and the render options.
 */
import { createHash } from 'node:crypto';
import type { RenderJobOptions } from '../jobs/job-store.js';

export function renderFingerprint(
  replay: Uint8Array,
  skin: string,
  options: RenderJobOptions,
): string {
  const canonical = Object.fromEntries(
    Object.entries(options).sort(([a], [b]) => (a < b ? -1 : 1)),
  );
  return createHash('sha256')
    .update(replay)
    .update('\0')
    .update(skin.toLowerCase())
    .update('\0')
    .update(JSON.stringify(canonical))
    .digest('hex');
}
