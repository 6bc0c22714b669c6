/**
 * Finds the beatmap a replay was played on, by its MD5: first in the local library
 * (`BEATMAPS_DIR`: `.osu` files and `.osz` archives), then in the object-storage cache
 * (a whole set, `beatmaps/<md5>.set`, else `beatmaps/<md5>.osu`), then from the mirror
 * (`BEATMAP_MIRROR_URL`; `{md5}` in the URL is replaced, else `/<md5>` is appended). The
 * mirror may answer the `.osu` (checked against the MD5) or the whole set as an `.osz`
 * (recognised by its ZIP signature, extracted with the archive bounds, and holding a
 * `.osu` with that MD5); either is cached. Throws `BeatmapNotFoundError` with a reason a
 * user can read.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ObjectNotFoundError,
  OutboundLimitError,
  OutboundRefusedError,
  type ObjectStore,
  type OutboundGuard,
} from '@platform/core';
import { BeatmapLibrary, beatmapMd5 } from '@platform/osu';
import type { SkinArchiveLimits } from '../skins/skin-archive.js';
import {
  BeatmapSetError,
  beatmapSetPointerKey,
  cacheBeatmapSet,
  cachedBeatmapSet,
  DEFAULT_SET_LIMITS,
  extractBeatmapSet,
  isZipArchive,
  pickMap,
} from './beatmap-set.js';

export class BeatmapNotFoundError extends Error {
  override readonly name = 'BeatmapNotFoundError';
}

export interface ResolvedBeatmap {
  osuPath: string;
  /** Folder holding the map's files (audio, background, video, storyboard) when known. */
  folder: string;
  source: 'library' | 'cache' | 'mirror';
}

export interface BeatmapResolverOptions {
  /** Local folders. @defaultValue [] */
  dirs?: string[] | undefined;
  /** @defaultValue undefined (no download) */
  mirrorUrl?: string | undefined;
  /** How the mirror is requested (`outboundGuardFromEnv`: ALLOWED_OUTBOUND decides what it may be); required with `mirrorUrl`. */
  outbound?: Pick<OutboundGuard, 'fetch'> | undefined;
  store: ObjectStore;
  /** @defaultValue 30000 */
  downloadTimeoutMs?: number;
  /** Largest answer accepted from the mirror (a set may hold a video). @defaultValue 200 MiB */
  maxDownloadBytes?: number;
  /** Bounds of a set's extraction. @defaultValue `DEFAULT_SET_LIMITS` */
  setLimits?: SkinArchiveLimits | undefined;
}

export interface BeatmapResolver {
  resolve(md5: string, workDir: string): Promise<ResolvedBeatmap>;
}

const MD5_PATTERN = /^[0-9a-f]{32}$/;
export const beatmapCacheKey = (md5: string) => `beatmaps/${md5}.osu`;

export function createBeatmapResolver(options: BeatmapResolverOptions): BeatmapResolver {
  const library =
    options.dirs && options.dirs.length > 0 ? new BeatmapLibrary(options.dirs) : undefined;
  const timeoutMs = options.downloadTimeoutMs ?? 30_000;
  const maxBytes = options.maxDownloadBytes ?? 200 * 1024 * 1024;
  const { outbound } = options;
  if (options.mirrorUrl && !outbound) throw new Error('a beatmap mirror needs an outbound guard');

  async function download(md5: string): Promise<Buffer> {
    const base = options.mirrorUrl!;
    const url = base.includes('{md5}')
      ? base.replaceAll('{md5}', md5)
      : `${base.replace(/\/+$/, '')}/${md5}`;
    const tooLarge = () => new BeatmapNotFoundError(`Beatmap ${md5} from the mirror is too large.`);
    let response: Response;
    try {
      response = await outbound!.fetch(url, { timeoutMs, maxBytes });
    } catch (error) {
      if (error instanceof OutboundRefusedError)
        throw new BeatmapNotFoundError(
          `Beatmap ${md5} could not be downloaded: the mirror may not be requested (${error.message}).`,
        );
      if (error instanceof OutboundLimitError) throw tooLarge();
      throw new BeatmapNotFoundError(
        `Beatmap ${md5} could not be downloaded: the mirror did not answer (${(error as Error).message}).`,
      );
    }
    if (response.status === 404)
      throw new BeatmapNotFoundError(`Beatmap ${md5} was not found locally or on the mirror.`);
    if (!response.ok)
      throw new BeatmapNotFoundError(
        `Beatmap ${md5} could not be downloaded: the mirror answered ${response.status}.`,
      );
    if (Number(response.headers.get('content-length') ?? 0) > maxBytes) throw tooLarge();
    // Counted while read: an answer without a length (or lying about it) stops at the limit.
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      for await (const chunk of response.body ?? []) {
        size += chunk.length;
        if (size > maxBytes) throw tooLarge();
        chunks.push(chunk);
      }
    } catch (error) {
      if (error instanceof BeatmapNotFoundError) throw error;
      if (error instanceof OutboundLimitError) throw tooLarge();
      throw new BeatmapNotFoundError(
        `Beatmap ${md5} could not be downloaded: the mirror's answer broke off (${(error as Error).message}).`,
      );
    }
    return Buffer.concat(chunks);
  }

  /** The map out of a set's bytes, or `BeatmapNotFoundError` saying what was wrong. */
  async function fromSet(data: Buffer, md5: string, workDir: string) {
    try {
      const set = await extractBeatmapSet(data, workDir, options.setLimits ?? DEFAULT_SET_LIMITS);
      return { set, map: pickMap(set, md5) };
    } catch (error) {
      if (error instanceof BeatmapSetError)
        throw new BeatmapNotFoundError(`Beatmap ${md5} could not be used: ${error.message}.`);
      throw error;
    }
  }

  const cachedObject = (key: string) =>
    options.store.get(key).catch((error: unknown) => {
      if (error instanceof ObjectNotFoundError) return undefined;
      throw error;
    });

  return {
    async resolve(rawMd5, workDir) {
      const md5 = rawMd5.toLowerCase();
      if (!MD5_PATTERN.test(md5))
        throw new BeatmapNotFoundError('The replay does not name a valid beatmap MD5.');
      const found = await library?.findByMd5(md5);
      if (found) return { ...found, source: 'library' };
      const pointer = await cachedObject(beatmapSetPointerKey(md5));
      const cachedSet = pointer && (await cachedBeatmapSet(options.store, pointer));
      if (cachedSet) {
        const { map } = await fromSet(cachedSet, md5, workDir);
        return { ...map, source: 'cache' };
      }
      const osuPath = join(workDir, `${md5}.osu`);
      const cached = await cachedObject(beatmapCacheKey(md5));
      if (cached) {
        await writeFile(osuPath, cached);
        return { osuPath, folder: workDir, source: 'cache' };
      }
      if (!options.mirrorUrl)
        throw new BeatmapNotFoundError(
          `Beatmap ${md5} was not found in the local library and no mirror is configured.`,
        );
      const data = await download(md5);
      if (isZipArchive(data)) {
        const { set, map } = await fromSet(data, md5, workDir);
        await cacheBeatmapSet(options.store, data, set.maps.keys());
        return { ...map, source: 'mirror' };
      }
      if (beatmapMd5(data) !== md5)
        throw new BeatmapNotFoundError(`The mirror sent a different beatmap than ${md5}.`);
      await options.store.put(beatmapCacheKey(md5), data, {
        contentType: 'text/plain; charset=utf-8',
      });
      await writeFile(osuPath, data);
      return { osuPath, folder: workDir, source: 'mirror' };
    },
  };
}
