/**
 * Finds a beatmap by MD5 among the .osu files and .osz archives under some folders.
 * Archives are indexed without extracting; the one that holds the wanted map is
 * extracted (entries with absolute or `..` paths refused, sizes bounded) into a cache
 * folder keyed by the archive's hash, and the .osu path inside it is returned.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, normalize, sep } from 'node:path';
import { unzipSync } from 'fflate';
import { beatmapMd5 } from './beatmap-md5.js';

export interface BeatmapLibraryOptions {
  /** Where archives are extracted. @defaultValue `<os tmp>/platform-osu-osz` */
  cacheDir?: string;
  /** Largest total uncompressed size of an archive extracted. @defaultValue 1 GiB */
  maxExtractBytes?: number;
  /** A lookup that misses rescans the folders at most this often. @defaultValue 30000 */
  rescanIntervalMs?: number;
}

interface Entry {
  osuPath?: string;
  archive?: string;
  entryName?: string;
}

export class BeatmapLibrary {
  private index: Map<string, Entry> | undefined;
  private readonly cacheDir: string;
  private readonly maxExtractBytes: number;
  private readonly rescanIntervalMs: number;
  private indexedAt = 0;

  constructor(
    private readonly dirs: string[],
    options: BeatmapLibraryOptions = {},
  ) {
    this.cacheDir = options.cacheDir ?? join(tmpdir(), 'platform-osu-osz');
    this.maxExtractBytes = options.maxExtractBytes ?? 1024 * 1024 * 1024;
    this.rescanIntervalMs = options.rescanIntervalMs ?? 30_000;
  }

  /** Forgets the index so the next lookup rescans the folders. */
  refresh(): void {
    this.index = undefined;
  }

  async findByMd5(md5: string): Promise<{ osuPath: string; folder: string } | undefined> {
    const key = md5.toLowerCase();
    let entry = (await this.getIndex()).get(key);
    if (!entry && Date.now() - this.indexedAt >= this.rescanIntervalMs) {
      this.index = undefined; // a map may have been added since
      entry = (await this.getIndex()).get(key);
    }
    if (!entry) return undefined;
    if (entry.osuPath) return { osuPath: entry.osuPath, folder: dirname(entry.osuPath) };
    const folder = await this.extract(entry.archive!);
    const osuPath = join(folder, entry.entryName!);
    return { osuPath, folder: dirname(osuPath) };
  }

  private async getIndex(): Promise<Map<string, Entry>> {
    if (this.index) return this.index;
    const index = new Map<string, Entry>();
    for (const dir of this.dirs) await this.scan(dir, index, 0);
    this.index = index;
    this.indexedAt = Date.now();
    return index;
  }

  private async scan(dir: string, index: Map<string, Entry>, depth: number): Promise<void> {
    if (depth > 6) return;
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      const lower = name.toLowerCase();
      try {
        if (lower.endsWith('.osu')) {
          const md5 = beatmapMd5(await readFile(path));
          if (!index.has(md5)) index.set(md5, { osuPath: path });
        } else if (lower.endsWith('.osz')) {
          const files = unzipSync(await readFile(path), {
            filter: (f) => f.name.toLowerCase().endsWith('.osu'),
          });
          for (const [entryName, data] of Object.entries(files)) {
            const md5 = beatmapMd5(data);
            if (!index.has(md5) && safeEntry(entryName))
              index.set(md5, { archive: path, entryName });
          }
        } else if ((await stat(path)).isDirectory()) await this.scan(path, index, depth + 1);
      } catch {
        // unreadable file or bad archive: skip it
      }
    }
  }

  private async extract(archive: string): Promise<string> {
    const data = await readFile(archive);
    const folder = join(this.cacheDir, createHash('sha1').update(data).digest('hex'));
    try {
      await stat(join(folder, '.complete'));
      return folder;
    } catch {
      // not extracted yet
    }
    let total = 0;
    const files = unzipSync(data, {
      filter: (f) => {
        total += f.originalSize;
        if (total > this.maxExtractBytes)
          throw new Error(`archive ${archive} is too large to extract`);
        return safeEntry(f.name) && !f.name.endsWith('/');
      },
    });
    const tmp = `${folder}.tmp-${process.pid}-${Date.now()}`;
    for (const [name, bytes] of Object.entries(files)) {
      const target = join(tmp, normalize(name));
      if (!target.startsWith(tmp + sep)) continue;
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, bytes);
    }
    await mkdir(tmp, { recursive: true });
    await writeFile(join(tmp, '.complete'), '');
    try {
      await rename(tmp, folder);
    } catch {
      // another process extracted it first
    }
    return folder;
  }
}

function safeEntry(name: string): boolean {
  const n = name.replace(/\\/g, '/');
  return !n.startsWith('/') && !/^[a-zA-Z]:/.test(n) && !n.split('/').includes('..');
}
