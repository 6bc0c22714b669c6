/**
 * A beatmap set (`.osz`) from the mirror: extracted with the skin archive's bounds (entry
 * count, total size and ratio, depth, names, symlinks, nested archives, the ZIP test), so
 * the map renders with its audio, background, video and storyboard. In object storage a
 * set is kept once, under its content hash (`beatmaps/sets/<sha256>.osz`), and every
 * difficulty in it gets a small pointer (`beatmaps/<md5>.set`), so another difficulty of
 * the same set comes from the cache too.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ObjectStore } from '@platform/core';
import { beatmapMd5 } from '@platform/osu';
import {
  DEFAULT_SKIN_LIMITS,
  inspectSkinArchive,
  SkinArchiveError,
  type SkinArchiveLimits,
} from '../skins/skin-archive.js';

/** Sets keep storyboard folders a little deeper than skins; the other bounds are the skin's. */
export const DEFAULT_SET_LIMITS: Readonly<SkinArchiveLimits> = Object.freeze({
  ...DEFAULT_SKIN_LIMITS,
  maxDepth: 6,
});

export const beatmapSetPointerKey = (md5: string) => `beatmaps/${md5}.set`;
const setKey = (hash: string) => `beatmaps/sets/${hash}.osz`;
const SET_KEY_PATTERN = /^beatmaps\/sets\/[0-9a-f]{64}\.osz$/;

/** A local-file ZIP header (`PK\x03\x04`): a set, not a `.osu`. */
export function isZipArchive(data: Uint8Array): boolean {
  return data[0] === 0x50 && data[1] === 0x4b && data[2] === 0x03 && data[3] === 0x04;
}

export class BeatmapSetError extends Error {
  override readonly name = 'BeatmapSetError';
}

export interface ExtractedSet {
  /** Every `.osu` in the set, by MD5. */
  maps: Map<string, string>;
  folder: string;
}

/** Extracts `data` into `<workDir>/set` with the archive bounds; refuses with `BeatmapSetError`. */
export async function extractBeatmapSet(
  data: Buffer,
  workDir: string,
  limits: SkinArchiveLimits = DEFAULT_SET_LIMITS,
): Promise<ExtractedSet> {
  const archive = join(workDir, 'set.osz');
  const folder = join(workDir, 'set');
  await writeFile(archive, data);
  try {
    await inspectSkinArchive(archive, data.length, limits, folder);
  } catch (error) {
    if (error instanceof SkinArchiveError)
      throw new BeatmapSetError(`the beatmap set was refused: ${error.message}`);
    throw error;
  } finally {
    await rm(archive, { force: true });
  }
  const maps = new Map<string, string>();
  for (const name of await readdir(folder, { recursive: true })) {
    if (!name.toLowerCase().endsWith('.osu')) continue;
    const path = join(folder, name);
    maps.set(beatmapMd5(await readFile(path)), path);
  }
  return { maps, folder };
}

/** Stores the set once and a pointer for each of its difficulties. */
export async function cacheBeatmapSet(
  store: ObjectStore,
  data: Buffer,
  md5s: Iterable<string>,
): Promise<void> {
  const key = setKey(createHash('sha256').update(data).digest('hex'));
  await store.put(key, data, { contentType: 'application/x-osu-beatmap-archive' });
  for (const md5 of md5s)
    await store.put(beatmapSetPointerKey(md5), Buffer.from(key), { contentType: 'text/plain' });
}

/** The cached set a pointer names, or undefined when the pointer is not a set key. */
export async function cachedBeatmapSet(
  store: ObjectStore,
  pointer: Buffer,
): Promise<Buffer | undefined> {
  const key = pointer.toString('utf8').trim();
  return SET_KEY_PATTERN.test(key) ? store.get(key) : undefined;
}

/** The map's `.osu` and the folder its files are read from (the `.osu`'s own folder). */
export function pickMap(set: ExtractedSet, md5: string): { osuPath: string; folder: string } {
  const osuPath = set.maps.get(md5);
  if (!osuPath) throw new BeatmapSetError(`the beatmap set holds no beatmap ${md5}`);
  return { osuPath, folder: dirname(osuPath) };
}
