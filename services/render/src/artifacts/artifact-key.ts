/**
 * Which artifact keys may be served, and how: the allowed prefixes with their content
 * types, and the refusal of every traversal form (`..`, `.` segments, encoded slashes or
 * backslashes, absolute paths, backslashes, NUL, empty segments).
 */
export const ARTIFACT_TYPES = {
  'logs/': 'text/plain; charset=utf-8',
  'videos/': 'video/mp4',
  'thumbnails/': 'image/jpeg',
  'replays/': 'application/octet-stream',
  'skins/': 'application/octet-stream',
} as const;

export type ArtifactPrefix = keyof typeof ARTIFACT_TYPES;

/**
 * Checks the raw (still percent-encoded) key from the URL; returns the decoded key and
 * its prefix, or undefined when it must be refused.
 */
export function parseArtifactKey(
  rawKey: string,
): { key: string; prefix: ArtifactPrefix } | undefined {
  if (/%(2f|5c|00)/i.test(rawKey)) return undefined;
  let key: string;
  try {
    key = decodeURIComponent(rawKey);
  } catch {
    return undefined;
  }
  if (key.startsWith('/') || key.includes('\\') || key.includes('\0') || /^[a-zA-Z]:/.test(key))
    return undefined;
  const segments = key.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) return undefined;
  const prefix = (Object.keys(ARTIFACT_TYPES) as ArtifactPrefix[]).find((p) => key.startsWith(p));
  if (!prefix || segments.length < 2) return undefined;
  return { key, prefix };
}
