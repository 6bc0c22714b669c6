/**
 * Inspects (and optionally extracts) an `.osk` skin archive with a streaming ZIP reader.
 *
 * Reads the central directory first and refuses, in this order: more than `maxEntries`
 * entries; a total compression ratio above `maxRatio` or a total uncompressed size above
 * `maxUncompressedBytes`; a path deeper than `maxDepth` folders; a nested `.zip`/`.osk`;
 * an unsafe entry name (absolute, drive letter, `..`, backslash, NUL, control characters)
 * or a symlink; then streams every entry, checking its real size and CRC-32 (the
 * "ZIP test"). With `extractTo`, files are written under that folder only, never over an
 * existing file. Throws `SkinArchiveError` with the reason; anything else is a bug.
 */
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32 } from 'node:zlib';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { skinFolderPrefix } from '@platform/osu';

export interface SkinArchiveLimits {
  /** @defaultValue 10000 */
  maxEntries: number;
  /** Total uncompressed / compressed bytes. @defaultValue 100 */
  maxRatio: number;
  /** @defaultValue 1 GiB */
  maxUncompressedBytes: number;
  /** Folders above a file (`a/b/c/file.png` is 3). @defaultValue 3 */
  maxDepth: number;
}

export const DEFAULT_SKIN_LIMITS: Readonly<SkinArchiveLimits> = Object.freeze({
  maxEntries: 10_000,
  maxRatio: 100,
  maxUncompressedBytes: 1024 * 1024 * 1024,
  maxDepth: 3,
});

export type SkinArchiveProblem =
  'entries' | 'ratio' | 'size' | 'depth' | 'nested' | 'name' | 'integrity';

export class SkinArchiveError extends Error {
  override readonly name = 'SkinArchiveError';
  constructor(
    readonly problem: SkinArchiveProblem,
    message: string,
  ) {
    super(message);
  }
}

export interface SkinArchiveSummary {
  entries: number;
  files: number;
  uncompressedBytes: number;
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const UTF8_FLAG = 0x800;

function entryName(entry: Entry): string {
  return entry.fileNameRaw.toString(entry.generalPurposeBitFlag & UTF8_FLAG ? 'utf8' : 'latin1');
}

/** Returns why a name is unsafe, or undefined when it is fine. */
export function unsafeEntryName(name: string): string | undefined {
  if (name.length === 0) return 'empty entry name';
  if (name.includes('\\')) return 'backslash in entry name';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f]/.test(name)) return 'control character in entry name';
  if (name.startsWith('/') || /^[a-zA-Z]:/.test(name)) return 'absolute entry path';
  const segments = name.replace(/\/$/, '').split('/');
  if (segments.some((s) => s === '..' || s === '.' || s === ''))
    return 'relative traversal in entry path';
  return undefined;
}

function open(path: string): Promise<ZipFile> {
  return new Promise((resolvePromise, reject) => {
    yauzl.open(
      path,
      { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true },
      (err, zip) => (err ? reject(err) : resolvePromise(zip)),
    );
  });
}

function readDirectory(zip: ZipFile): Promise<Entry[]> {
  return new Promise((resolvePromise, reject) => {
    const entries: Entry[] = [];
    zip.on('entry', (entry: Entry) => {
      entries.push(entry);
      zip.readEntry();
    });
    zip.on('end', () => resolvePromise(entries));
    zip.on('error', reject);
    zip.readEntry();
  });
}

export async function inspectSkinArchive(
  path: string,
  archiveBytes: number,
  limits: SkinArchiveLimits = DEFAULT_SKIN_LIMITS,
  extractTo?: string,
): Promise<SkinArchiveSummary> {
  let zip: ZipFile;
  try {
    zip = await open(path);
  } catch (error) {
    throw new SkinArchiveError(
      'integrity',
      `archive is not a readable ZIP file (${(error as Error).message})`,
    );
  }
  try {
    if (zip.entryCount > limits.maxEntries) {
      throw new SkinArchiveError(
        'entries',
        `archive has ${zip.entryCount} entries; at most ${limits.maxEntries} are allowed`,
      );
    }
    let entries: Entry[];
    try {
      entries = await readDirectory(zip);
    } catch (error) {
      throw new SkinArchiveError(
        'integrity',
        `archive directory is damaged (${(error as Error).message})`,
      );
    }
    const names = entries.map(entryName);
    checkDirectory(entries, names, archiveBytes, limits);
    const target = extractTo ? resolve(extractTo) : undefined;
    // extracted without the single folder an archive may wrap the skin in, so `skin.ini`
    // lands at the top, where the renderer reads it
    const strip = skinFolderPrefix(names.filter((name) => !name.endsWith('/')));
    let uncompressed = 0;
    let files = 0;
    for (const [i, entry] of entries.entries()) {
      const name = names[i]!;
      if (name.endsWith('/')) {
        if (target) await mkdir(safeJoin(target, name.slice(strip.length)), { recursive: true });
        continue;
      }
      uncompressed += await testEntry(
        zip,
        entry,
        name,
        target && safeJoin(target, name.slice(strip.length)),
      );
      files += 1;
    }
    return { entries: entries.length, files, uncompressedBytes: uncompressed };
  } finally {
    zip.close();
  }
}

function checkDirectory(
  entries: Entry[],
  names: string[],
  archiveBytes: number,
  limits: SkinArchiveLimits,
): void {
  const total = entries.reduce((sum, e) => sum + e.uncompressedSize, 0);
  if (total > limits.maxUncompressedBytes) {
    throw new SkinArchiveError(
      'size',
      `archive expands to ${total} bytes; at most ${limits.maxUncompressedBytes} are allowed`,
    );
  }
  if (total / Math.max(1, archiveBytes) > limits.maxRatio) {
    throw new SkinArchiveError('ratio', `compression ratio above ${limits.maxRatio}x`);
  }
  for (const name of names) {
    const folders = name.replace(/\/$/, '').split('/').length - (name.endsWith('/') ? 0 : 1);
    if (folders > limits.maxDepth) {
      throw new SkinArchiveError(
        'depth',
        `entry "${name}" is nested deeper than ${limits.maxDepth} folders`,
      );
    }
  }
  for (const name of names) {
    if (/\.(zip|osk)$/i.test(name))
      throw new SkinArchiveError('nested', `nested archive "${name}" is not allowed`);
  }
  entries.forEach((entry, i) => {
    const problem = unsafeEntryName(names[i]!);
    if (problem) throw new SkinArchiveError('name', `${problem}: "${names[i]}"`);
    if (((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK) {
      throw new SkinArchiveError('name', `symbolic link "${names[i]}" is not allowed`);
    }
  });
}

function safeJoin(target: string, name: string): string {
  const path = resolve(target, name);
  if (path !== target && !path.startsWith(target + sep))
    throw new SkinArchiveError('name', `entry "${name}" escapes the folder`);
  return path;
}

/** Streams one entry through a CRC-32 (and to disk when extracting); returns its size. */
async function testEntry(
  zip: ZipFile,
  entry: Entry,
  name: string,
  /** Where to write the entry; undefined to only test it. */
  path: string | undefined,
): Promise<number> {
  let crc = 0;
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      crc = crc32(chunk, crc);
      size += chunk.length;
      done(null, chunk);
    },
  });
  try {
    const source = await zip.openReadStreamPromise(entry);
    if (path) {
      await mkdir(dirname(path), { recursive: true });
      await pipeline(source, meter, createWriteStream(path, { flags: 'wx' }));
    } else {
      await pipeline(source, meter, new Writable({ write: (_chunk, _enc, done) => done() }));
    }
  } catch (error) {
    if (error instanceof SkinArchiveError) throw error;
    throw new SkinArchiveError(
      'integrity',
      `entry "${name}" failed the ZIP test (${(error as Error).message})`,
    );
  }
  if (crc >>> 0 !== entry.crc32 >>> 0) {
    throw new SkinArchiveError('integrity', `entry "${name}" failed the ZIP test (CRC mismatch)`);
  }
  return size;
}
