/**
 * Extracts a .osk skin archive (a ZIP) into a folder: entries with absolute or `..`
 * paths are skipped, nested archives ignored, and the total size is bounded.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, normalize, resolve, sep } from 'node:path';
import { unzipSync } from 'fflate';

export async function extractOsk(
  archivePath: string,
  targetDir: string,
  maxBytes = 512 * 1024 * 1024,
): Promise<string> {
  let total = 0;
  const files = unzipSync(await readFile(archivePath), {
    filter: (f) => {
      total += f.originalSize;
      if (total > maxBytes) throw new Error('skin archive too large');
      const name = f.name.replace(/\\/g, '/');
      return (
        !name.endsWith('/') &&
        !name.startsWith('/') &&
        !name.split('/').includes('..') &&
        !/\.(zip|osk)$/i.test(name)
      );
    },
  });
  const strip = skinFolderPrefix(Object.keys(files));
  // compared in resolved form: "./skin" or "skin/" would match no joined path
  const root = resolve(targetDir);
  for (const [name, data] of Object.entries(files)) {
    const rel = normalize(name.slice(strip.length));
    const target = join(root, rel);
    if (!target.startsWith(root + sep)) continue;
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, data);
  }
  return targetDir;
}

/**
 * The folder a skin archive's files sit in, with its trailing slash, or '' when they sit
 * at the top: archives made by zipping the skin's folder hold everything in a single top
 * folder, which is the skin folder (its `skin.ini` is the skin's).
 */
export function skinFolderPrefix(fileNames: readonly string[]): string {
  const tops = new Set(fileNames.map((n) => n.split('/')[0]));
  return tops.size === 1 && fileNames.every((n) => n.includes('/')) ? `${[...tops][0]}/` : '';
}
