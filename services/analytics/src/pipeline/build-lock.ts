/**
 * One build at a time per warehouse: a lock file next to it (`.build.lock`, created
 * exclusively, holding the builder's pid). A lock whose process is gone is taken over.
 * Errors: `PipelineError` when another live build holds the lock.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PipelineError } from './pipeline-error.js';

export async function withBuildLock<T>(warehouseFile: string, work: () => Promise<T>): Promise<T> {
  const lock = join(dirname(warehouseFile), '.build.lock');
  await acquire(lock);
  try {
    return await work();
  } finally {
    await rm(lock, { force: true });
  }
}

async function acquire(lock: string): Promise<void> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(lock, String(process.pid), { flag: 'wx' });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number((await readFile(lock, 'utf8').catch(() => '')).trim());
      if (alive(holder))
        throw new PipelineError(`another build is running (process ${holder}, lock ${lock})`);
      await rm(lock, { force: true });
    }
  }
  throw new PipelineError(`could not take the build lock ${lock}`);
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
