/**
 * The torn tail of an append-only file of lines (issue 21, found by the chaos run's
 * disk-full fault): a write that meets a full disk can be short, leaving part of a line at
 * the end of the file. The next append would be glued onto it, and the two read back as
 * one line that does not parse: the later entry — written, synced and acknowledged — would
 * be dropped at the next load. So a file is cut back to its last whole line before it is
 * appended to again after a failed write (and at open, for a tail a power loss tore).
 */
import { open } from 'node:fs/promises';

const CHUNK = 64 * 1024;

/** Cuts `path` after its last newline (nothing to do when it ends with one, is empty or absent). */
export async function cutTornTail(path: string): Promise<void> {
  const handle = await open(path, 'r+').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (!handle) return;
  try {
    const { size } = await handle.stat();
    let end = size;
    const buffer = Buffer.alloc(CHUNK);
    while (end > 0) {
      const from = Math.max(0, end - CHUNK);
      const { bytesRead } = await handle.read(buffer, 0, end - from, from);
      const newline = buffer.subarray(0, bytesRead).lastIndexOf(0x0a);
      if (newline >= 0) {
        end = from + newline + 1;
        break;
      }
      end = from;
    }
    // The next append's fdatasync makes the new length durable with its own line.
    if (end < size) await handle.truncate(end);
  } finally {
    await handle.close();
  }
}
