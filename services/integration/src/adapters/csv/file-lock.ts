/**
 * One writer per CSV file (spec 8.3): a `<file>.lock` created exclusively, holding the
 * owner's pid and a token. A lock whose pid is no longer alive is stale and taken over;
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

export async function acquireFileLock(target: string): Promise<FileLock> {
  const path = `${target}.lock`;
  const token = randomUUID();
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(JSON.stringify({ pid: process.pid, token }));
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
      const holder = JSON.parse((await readFile(path, 'utf8').catch(() => '')) || '{}') as {
        pid?: number;
      };
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
