import { open } from 'node:fs/promises';

/** fsync of a file or folder by its path (on Linux any fd of a file syncs it). */
export async function syncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
