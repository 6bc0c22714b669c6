import { createHash } from 'node:crypto';

/** MD5 (lower-case hex) of a beatmap file's bytes, as a replay header stores it. */
export function beatmapMd5(data: Uint8Array): string {
  return createHash('md5').update(data).digest('hex');
}
