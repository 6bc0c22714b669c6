/**
 * One writer per CSV file (spec 8.3): a `<file>.lock` created exclusively, holding the
 * owner's pid and a token. A lock whose pid is no longer alive, or that holds no whole
 * line (its writer crashed or met a full disk before writing it), is stale and taken over;
 * a live one (another process, or another attachment in this process) refuses with
 * `TargetLockedError`.
 */
import { randomUUID } from 'node:crypto';
import { open, readFile, unlink } from 'node:fs/promises';
import { TargetLockedError } from '../runtime/failures.js';

export interface FileLock {
  readonly path: string;
  release(): Promise<void>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The lock's owner; none when it is empty or torn (a writer that crashed, or met a full
 * disk, between creating it and writing its line): such a lock is stale, as one whose
 * pid is gone.
 */
function ownerOf(text: string): { pid?: number } {
  try {
    return (JSON.parse(text || '{}') as { pid?: number } | null) ?? {};
  } catch {
    return {};
  }
}

export async function acquireFileLock(target: string): Promise<FileLock> {
  const path = `${target}.lock`;
  const token = randomUUID();
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const handle = await open(path, 'wx');
      try {
        await handle.writeFile(JSON.stringify({ pid: process.pid, token }));
      } catch (error) {
        // A full disk: the lock holds part of its line at most, and no owner. Gone, or
        // no later attempt (this process's or another's) could take it.
        await handle.close().catch(() => undefined);
        await unlink(path).catch(() => undefined);
        throw error;
      }
      await handle.close();
      return {
        path,
        async release() {
          const current = await readFile(path, 'utf8').catch(() => '');
          if (current.includes(token)) await unlink(path).catch(() => undefined);
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = ownerOf(await readFile(path, 'utf8').catch(() => ''));
      if (typeof holder.pid === 'number' && alive(holder.pid)) {
        throw new TargetLockedError(
          `${target} is being written by another writer (pid ${holder.pid})`,
        );
      }
      await unlink(path).catch(() => undefined);
    }
  }
  throw new TargetLockedError(`could not lock ${target}`);
}
