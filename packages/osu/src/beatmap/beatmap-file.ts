/**
 * Resolves a file name written in a beatmap (background, audio, video, storyboard
 * sprite, .osb) to a path inside the beatmap's folder, matching case-insensitively
 * like the game on Windows. Names are relative: absolute paths, drive letters, `..`
 * segments and NUL bytes never resolve, so a crafted map cannot read outside its folder.
 */
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { isAbsolute, join, normalize, relative, sep } from 'node:path';

/** The relative path for `name` inside a folder, or undefined when it would leave it. */
export function safeRelativeName(name: string): string | undefined {
  const n = name.replace(/\\/g, '/').trim();
  if (!n || n.includes('\0') || isAbsolute(n) || /^[a-zA-Z]:/.test(n)) return undefined;
  if (n.split('/').some((part) => part === '..')) return undefined;
  const rel = normalize(n);
  if (rel.startsWith('..') || isAbsolute(rel)) return undefined;
  return rel;
}

/** `name` joined to `folder` when it stays inside it, else undefined (no file system access). */
export function pathInFolder(folder: string, name: string): string | undefined {
  const rel = safeRelativeName(name);
  if (!rel) return undefined;
  const path = join(folder, rel);
  const back = relative(folder, path);
  return back && !back.startsWith(`..${sep}`) && back !== '..' && !isAbsolute(back)
    ? path
    : undefined;
}

/** The existing file for `name` in `folder` (exact, else a case-insensitive match of the last part). */
export async function fileIn(
  folder: string,
  name: string | undefined,
): Promise<string | undefined> {
  if (!name) return undefined;
  const direct = pathInFolder(folder, name);
  if (!direct) return undefined;
  if (existsSync(direct)) return direct;
  const rel = safeRelativeName(name)!;
  const parts = rel.split(sep);
  const last = parts.pop()!.toLowerCase();
  const dir = parts.length ? pathInFolder(folder, parts.join('/')) : folder;
  if (!dir) return undefined;
  try {
    const hit = (await readdir(dir)).find((f) => f.toLowerCase() === last);
    return hit ? join(dir, hit) : undefined;
  } catch {
    return undefined;
  }
}
