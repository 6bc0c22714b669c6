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
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skipReason } from './engines.js';
import { freePort } from './free-port.js';

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

/**
 * Starts `command` under `fiu-run -x` (which execs it: the child's pid is the program's);
 * with `startFull` the disk is full from its first instruction.
 */
export function spawnUnderFiu(
  command: string,
  args: string[],
  options: SpawnOptions,
  startFull = false,
): ChildProcess {
  const enable = startFull ? faultCommands(true, ENOSPC) : [];
  return spawn('fiu-run', ['-x', ...enable, command, ...args], options);
}

const faultCommands = (full: boolean, errno: number) =>
  DISK_FAULT_POINTS.flatMap((name) => [
    '-c',
    full ? `enable name=${name},failinfo=${errno}` : `disable name=${name}`,
  ]);

/** Makes the disk of process `pid` full (errno 28, or EIO with `errno`) or frees it. */
export function setDiskFull(pid: number, full: boolean, errno = ENOSPC): void {
  execFileSync('fiu-ctrl', [...faultCommands(full, errno), String(pid)], { stdio: 'ignore' });
}

/** The skip reason of a test that needs fiu-run (printed loudly), or undefined. */
export function fiuSkipReason(): string | undefined {
  return skipReason('fiu-run and fiu-ctrl (Debian fiu-utils)', fiuAvailable());
}

/**
 * Runs a service's `src/main.ts` (in `serviceDir`) under fiu-run for one test, on a free
 * port with its data in a throw-away folder; the test's end kills it and removes the
 * folder. `stderr()` is what it printed there (for a failure message).
 */
export async function startServiceUnderFiu(
  t: { after(fn: () => void): void },
  serviceDir: string,
  env: Record<string, string>,
  startFull = false,
) {
  const work = mkdtempSync(join(tmpdir(), 'disk-fault-'));
  const port = await freePort();
  const child = spawnUnderFiu(
    process.execPath,
    ['--import', 'tsx', 'src/main.ts'],
    {
      cwd: serviceDir,
      env: { ...env, HOST: '127.0.0.1', PORT: String(port), DATA_DIR: join(work, 'data') },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
    startFull,
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
  t.after(() => {
    child.kill('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  });
  return { child, pid: child.pid!, base: `http://127.0.0.1:${port}`, stderr: () => stderr };
}

/** An answer as a fault test checks it: its status, `Retry-After` and JSON body. */
export interface FaultAnswer<Body> {
  status: number;
  retryAfter: string | null;
  body: Body;
}

export async function faultAnswer<Body>(response: Response): Promise<FaultAnswer<Body>> {
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as Body,
  };
}

/** `GET /health` of a service: its status and what it says of each dependency. */
export async function serviceHealth(
  base: string,
): Promise<FaultAnswer<{ dependencies?: Record<string, { status: string; error?: string }> }>> {
  return faultAnswer(await fetch(`${base}/health`));
}
