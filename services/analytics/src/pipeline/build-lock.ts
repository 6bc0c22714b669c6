/**
 * One build at a time per warehouse: a lock file next to it (`.build.lock`, created
 * exclusively, holding the builder's pid). A lock whose process is gone is taken over,
 * and so is one naming this process that no build of this process holds: it was left by
 * an earlier process with the same pid (a container restarted after a crash).
 * Errors: `PipelineError` when another live build holds the lock.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { PipelineError } from './pipeline-error.js';

/** Lock files this process's builds hold or are taking. */
const held = new Set<string>();

export async function withBuildLock<T>(warehouseFile: string, work: () => Promise<T>): Promise<T> {
  const lock = resolve(dirname(warehouseFile), '.build.lock');
  if (held.has(lock)) throw running(process.pid, lock);
  held.add(lock);
  try {
    await acquire(lock);
    try {
      return await work();
    } finally {
      await rm(lock, { force: true });
    }
  } finally {
    held.delete(lock);
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
      if (holder !== process.pid && alive(holder)) throw running(holder, lock);
      await rm(lock, { force: true });
    }
  }
  throw new PipelineError(`could not take the build lock ${lock}`);
}

function running(pid: number, lock: string): PipelineError {
  return new PipelineError(`another build is running (process ${pid}, lock ${lock})`);
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
