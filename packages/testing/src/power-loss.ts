/**
 * A power loss of a process on its embedded defaults (issue 21, `npm run chaos`): the
 * process is paused (SIGSTOP) while its folder is copied, so the copy is the disk as a
 * writeback that stopped at that moment left it (every write made so far, no later one);
 * after it ran on and was killed, it is started again from that copy. The same paused
 * copy lets a harness read an embedded database (PGlite) the running process holds: the
 * copy opens as after a crash.
 */
import type { ChildProcess } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';

/** Copies `from` to `to` (replacing it) while `child` is paused; returns when it was paused. */
export function copyWhilePaused(child: ChildProcess, from: string, to: string): number {
  child.kill('SIGSTOP');
  const pausedAt = Date.now();
  try {
    rmSync(to, { recursive: true, force: true });
    cpSync(from, to, { recursive: true });
  } finally {
    child.kill('SIGCONT');
  }
  return pausedAt;
}

/** Puts the copy back as the folder (the process must be down): what the disk held. */
export function restoreCopy(copy: string, folder: string): void {
  rmSync(folder, { recursive: true, force: true });
  cpSync(copy, folder, { recursive: true });
}
