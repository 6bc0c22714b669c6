/**
 * Finds the beatmap a replay was played on, by its MD5: first in the local library
 * (`BEATMAPS_DIR`: `.osu` files and `.osz` archives), then in the object-storage cache
 * (`beatmaps/<md5>.osu`), then from the mirror (`BEATMAP_MIRROR_URL`; `{md5}` in the URL
 * is replaced, else `/<md5>` is appended), whose answer is checked against the MD5 and
 * cached. Throws `BeatmapNotFoundError` with a reason a user can read.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ObjectNotFoundError, type ObjectStore } from '@platform/core';
import { BeatmapLibrary, beatmapMd5 } from '@platform/osu';

export class BeatmapNotFoundError extends Error {
  override readonly name = 'BeatmapNotFoundError';
}

export interface ResolvedBeatmap {
  osuPath: string;
  /** Folder holding the map's files (audio, backgrounds) when it came from the library. */
  folder: string;
  source: 'library' | 'cache' | 'mirror';
}

export interface BeatmapResolverOptions {
  /** Local folders. @defaultValue [] */
  dirs?: string[] | undefined;
  /** @defaultValue undefined (no download) */
  mirrorUrl?: string | undefined;
  store: ObjectStore;
  /** @defaultValue 30000 */
  downloadTimeoutMs?: number;
  /** Largest `.osu` accepted from the mirror. @defaultValue 20 MiB */
  maxDownloadBytes?: number;
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
  const maxBytes = options.maxDownloadBytes ?? 20 * 1024 * 1024;

  async function download(md5: string): Promise<Buffer> {
    const base = options.mirrorUrl!;
    const url = base.includes('{md5}')
      ? base.replaceAll('{md5}', md5)
      : `${base.replace(/\/+$/, '')}/${md5}`;
    let response: Response;
    try {
      response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
    } catch (error) {
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
    const tooLarge = () => new BeatmapNotFoundError(`Beatmap ${md5} from the mirror is too large.`);
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
      throw new BeatmapNotFoundError(
        `Beatmap ${md5} could not be downloaded: the mirror's answer broke off (${(error as Error).message}).`,
      );
    }
    const data = Buffer.concat(chunks);
    if (beatmapMd5(data) !== md5)
      throw new BeatmapNotFoundError(`The mirror sent a different beatmap than ${md5}.`);
    return data;
  }

  return {
    async resolve(rawMd5, workDir) {
      const md5 = rawMd5.toLowerCase();
      if (!MD5_PATTERN.test(md5))
        throw new BeatmapNotFoundError('The replay does not name a valid beatmap MD5.');
      const found = await library?.findByMd5(md5);
      if (found) return { ...found, source: 'library' };
      const osuPath = join(workDir, `${md5}.osu`);
      const cached = await options.store.get(beatmapCacheKey(md5)).catch((error: unknown) => {
        if (error instanceof ObjectNotFoundError) return undefined;
        throw error;
      });
      if (cached) {
        await writeFile(osuPath, cached);
        return { osuPath, folder: workDir, source: 'cache' };
      }
      if (!options.mirrorUrl)
        throw new BeatmapNotFoundError(
          `Beatmap ${md5} was not found in the local library and no mirror is configured.`,
        );
      const data = await download(md5);
      await options.store.put(beatmapCacheKey(md5), data, {
        contentType: 'text/plain; charset=utf-8',
      });
      await writeFile(osuPath, data);
      return { osuPath, folder: workDir, source: 'mirror' };
    },
  };
}
