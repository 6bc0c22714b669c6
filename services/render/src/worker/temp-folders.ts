/**
 * Job temp folders (`render-job-*`) are removed by the job itself; a worker killed
 * mid-render cannot, so each worker sweeps folders older than any render can last when
 * it starts.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

export const JOB_TEMP_PREFIX = 'render-job-';

export async function sweepStaleJobFolders(
  root: string,
  olderThanMs: number,
  now = Date.now(),
): Promise<string[]> {
  const removed: string[] = [];
  const names = await readdir(root).catch(() => [] as string[]);
  for (const name of names.filter((n) => n.startsWith(JOB_TEMP_PREFIX))) {
    const path = join(root, name);
    const info = await stat(path).catch(() => undefined);
    if (info?.isDirectory() && now - info.mtimeMs > olderThanMs) {
      await rm(path, { recursive: true, force: true });
      removed.push(name);
    }
  }
  return removed;
}
