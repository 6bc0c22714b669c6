/**
 * A full or failing disk under a real process (issue 21), with libfiu's `fiu-run -x`
 * (Debian's fiu-utils): the process runs with libfiu's POSIX wrappers preloaded and its
 * fault points are switched at run time with `fiu-ctrl`. Only positioned writes
 * (pwrite, pwritev), fsync, fdatasync and ftruncate fail: plain write() and writev() are
 * also what a socket or stdout uses, and failing them would cut the HTTP answers the
 * test wants to read. PGlite (Emscripten's NODEFS writes at an offset) and DuckDB write
 * their files through the failing calls.
 */
import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

const DISK_FAULT_POINTS = [
  'posix/io/rw/pwrite',
  'posix/io/rw/pwritev',
  'posix/io/sync/fsync',
  'posix/io/sync/fdatasync',
  'posix/io/rw/ftruncate',
];
export const ENOSPC = 28;
export const EIO = 5;

/** Whether `fiu-run` and `fiu-ctrl` are installed (a test skips loudly without them). */
export function fiuAvailable(): boolean {
  try {
    execFileSync('sh', ['-c', 'command -v fiu-run && command -v fiu-ctrl'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Starts `command` under `fiu-run -x` (which execs it: the child's pid is the program's). */
export function spawnUnderFiu(
  command: string,
  args: string[],
  options: SpawnOptions,
): ChildProcess {
  return spawn('fiu-run', ['-x', command, ...args], options);
}

/** Makes the disk of process `pid` full (errno 28, or EIO with `errno`) or frees it. */
export function setDiskFull(pid: number, full: boolean, errno = ENOSPC): void {
  const commands = DISK_FAULT_POINTS.flatMap((name) => [
    '-c',
    full ? `enable name=${name},failinfo=${errno}` : `disable name=${name}`,
  ]);
  execFileSync('fiu-ctrl', [...commands, String(pid)], { stdio: 'ignore' });
}
