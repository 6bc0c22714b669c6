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
  const names = Object.keys(files);
  // a single top folder holding everything is the skin folder
  const tops = new Set(names.map((n) => n.split('/')[0]));
  const strip = tops.size === 1 && names.every((n) => n.includes('/')) ? `${[...tops][0]}/` : '';
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
