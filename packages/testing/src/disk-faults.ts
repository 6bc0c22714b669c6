/**
 * A full or failing disk under a real process (issue 21), with libfiu's `fiu-run -x`
 * (Debian's fiu-utils): the process runs with libfiu's POSIX wrappers preloaded and its
 * fault points are switched at run time with `fiu-ctrl`. Positioned writes (pwrite,
 * pwritev), fsync, fdatasync and ftruncate fail. PGlite (Emscripten's NODEFS writes at an
 * offset) and DuckDB write their files through them.
 *
 * Plain write() and writev() are also what a socket or stdout uses: fiu's own point for
 * them would cut the HTTP answers the test reads and the service's engine connections.
 * Node appends to a file with plain write(), though (`appendFile`, `writeFile`), so with
 * `fileWrites` the process also preloads `native/fiu-file-writes.c` (built here with `cc`
 * on first use), which fails them on regular files only, through the fault point
 * `platform/file/write`: with ENOSPC the first such write is short (half of it reaches the
 * file, as when the last blocks run out mid-write) and every later one fails.
 */
import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { skipReason } from './engines.js';
import { freePort } from './free-port.js';

const DISK_FAULT_POINTS = [
  'posix/io/rw/pwrite',
  'posix/io/rw/pwritev',
  'posix/io/sync/fsync',
  'posix/io/sync/fdatasync',
  'posix/io/rw/ftruncate',
  // Only where fileWritesLibrary() is preloaded; an unknown point is harmless elsewhere.
  'platform/file/write',
];
const SYNC_FAULT_POINTS = ['posix/io/sync/fsync', 'posix/io/sync/fdatasync'];
const FILE_WRITES_SOURCE = fileURLToPath(new URL('../native/fiu-file-writes.c', import.meta.url));
const LIBFIU = '/usr/lib/libfiu.so.1.1';
let fileWrites: string | null | undefined;

/**
 * The preload library that fails plain writes to files (see above), built with `cc`
 * against libfiu into the temp folder once per source version; undefined (and a line on
 * stderr) when it cannot be built here.
 */
export function fileWritesLibrary(): string | undefined {
  if (fileWrites !== undefined) return fileWrites ?? undefined;
  const source = readFileSync(FILE_WRITES_SOURCE);
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 12);
  const library = join(tmpdir(), `platform-fiu-file-writes-${hash}.so`);
  try {
    if (!existsSync(library)) {
      // Built beside it and renamed: runs building at once never load half a file.
      const partial = `${library}.${process.pid}`;
      execFileSync(
        'cc',
        ['-shared', '-fPIC', '-O2', '-o', partial, FILE_WRITES_SOURCE, LIBFIU, '-ldl'],
        { stdio: 'pipe' },
      );
      renameSync(partial, library);
    }
    fileWrites = library;
  } catch (error) {
    process.stderr.write(
      `disk faults: plain writes to files will not fail (cannot build ${FILE_WRITES_SOURCE}: ${(error as Error).message.split('\n')[0]})\n`,
    );
    fileWrites = null;
  }
  return fileWrites ?? undefined;
}
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
 * with `startFull` the disk is full from its first instruction; with `fileWrites` plain
 * writes to files fail too (the library above, preloaded first through `sh -c … exec`,
 * which keeps the pid; left out, and said so, where it cannot be built).
 */
export function spawnUnderFiu(
  command: string,
  args: string[],
  options: SpawnOptions,
  startFull = false,
  { fileWrites = false }: { fileWrites?: boolean } = {},
): ChildProcess {
  const enable = startFull ? faultCommands(DISK_FAULT_POINTS, true, ENOSPC) : [];
  const library = fileWrites ? fileWritesLibrary() : undefined;
  const program = library
    ? ['sh', '-c', `LD_PRELOAD="${library} $LD_PRELOAD" exec "$0" "$@"`, command, ...args]
    : [command, ...args];
  return spawn('fiu-run', ['-x', ...enable, ...program], options);
}

const faultCommands = (points: readonly string[], on: boolean, errno: number) =>
  points.flatMap((name) => [
    '-c',
    on ? `enable name=${name},failinfo=${errno}` : `disable name=${name}`,
  ]);

/** Makes the disk of process `pid` full (errno 28, or EIO with `errno`) or frees it. */
export function setDiskFull(pid: number, full: boolean, errno = ENOSPC): void {
  execFileSync('fiu-ctrl', [...faultCommands(DISK_FAULT_POINTS, full, errno), String(pid)], {
    stdio: 'ignore',
  });
}

/**
 * Makes only fsync and fdatasync of process `pid` fail (EIO by default), or stops it: the
 * writes reach the page cache but cannot be made durable (the fsyncgate case).
 */
export function setSyncFailing(pid: number, failing: boolean, errno = EIO): void {
  execFileSync('fiu-ctrl', [...faultCommands(SYNC_FAULT_POINTS, failing, errno), String(pid)], {
    stdio: 'ignore',
  });
}

/**
 * Makes one sync call of process `pid` fail (EIO by default), every write still
 * succeeding, or work again: what was written reaches the page cache and cannot be made
 * durable. `fdatasync` is what core's PGlite driver syncs the WAL with (a failed WAL
 * sync: the commit in doubt); `fsync` what the file store syncs an object and its folder with.
 */
export function setSyncCallFailing(
  pid: number,
  call: 'fsync' | 'fdatasync',
  failing: boolean,
  errno = EIO,
): void {
  execFileSync(
    'fiu-ctrl',
    [...faultCommands([`posix/io/sync/${call}`], failing, errno), String(pid)],
    { stdio: 'ignore' },
  );
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

/** An answer as a fault test checks it: its status, `Retry-After`, `Location` and JSON body. */
export interface FaultAnswer<Body> {
  status: number;
  retryAfter: string | null;
  location: string | null;
  body: Body;
}

export async function faultAnswer<Body>(response: Response): Promise<FaultAnswer<Body>> {
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    location: response.headers.get('location'),
    body: (await response.json()) as Body,
  };
}

/** `GET /health` of a service: its status and what it says of each dependency. */
export async function serviceHealth(
  base: string,
): Promise<FaultAnswer<{ dependencies?: Record<string, { status: string; error?: string }> }>> {
  return faultAnswer(await fetch(`${base}/health`));
}
