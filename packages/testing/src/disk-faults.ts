/**
 * A full or failing disk under a real process (issue 21): positioned writes (pwrite,
 * pwritev), fsync, fdatasync and ftruncate fail while a fault is on. PGlite (Emscripten's
 * NODEFS writes at an offset) and DuckDB write their files through them.
 *
 * Two ways (spawnUnderFiu): `native/disk-faults.c` alone (`lockFree`, the default: built
 * here with `cc` on first use and preloaded), each wrapped call reading its errno from a
 * byte of a small file the process maps at start-up, which the test writes; or, where it
 * cannot be built, libfiu's `fiu-run -x`, switched with `fiu-ctrl` (Debian's fiu-utils).
 * libfiu's wrappers take pthread rwlocks on every read, write and close: a service that
 * spawns children (render's ffmpeg and chromium) hung on them, in a child forked while
 * another thread held one and at two SIGCHLDs at once (the fork hang of services/render's
 * README; the C file says how).
 *
 * Plain write() and writev() are also what a socket or stdout uses: failing them all would
 * cut the HTTP answers the test reads and the service's engine connections. Node appends
 * to a file with plain write(), though (`appendFile`, `writeFile`), so with `fileWrites`
 * they fail on regular files only: with ENOSPC the first such write is short (half of it
 * reaches the file, as when the last blocks run out mid-write) and every later one fails.
 */
import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleEntry } from './bundled-entry.js';
import { skipReason } from './engines.js';
import { freePort } from './free-port.js';

/**
 * The points a fault switches, in the order of the library's slots (its enum), named as
 * libfiu names them (the fiu-ctrl fallback); `platform/file/write` is the library's own.
 */
const SWITCH_POINTS = [
  'posix/io/rw/pwrite',
  'posix/io/rw/pwritev',
  'posix/io/sync/fsync',
  'posix/io/sync/fdatasync',
  'posix/io/rw/ftruncate',
  'platform/file/write',
] as const;
type FaultPoint = (typeof SWITCH_POINTS)[number];
/** A full disk: every point (`platform/file/write` acts only where `fileWrites` asked for it). */
const DISK_FAULT_POINTS: readonly FaultPoint[] = SWITCH_POINTS;
/** The points libfiu knows (a full disk from the start under fiu-run). */
const FIU_POINTS = SWITCH_POINTS.filter((point) => point !== 'platform/file/write');
const SYNC_FAULT_POINTS: readonly FaultPoint[] = ['posix/io/sync/fsync', 'posix/io/sync/fdatasync'];
const LIBRARY_SOURCE = fileURLToPath(new URL('../native/disk-faults.c', import.meta.url));
let library: string | null | undefined;
/**
 * pid of a process started here with the library → the folder of its switch file
 * (`<folder>/<pid>`), and whether every point is switched there (`lockFree`) or only
 * `platform/file/write` (the rest by fiu-ctrl, under fiu-run).
 */
const switches = new Map<number, { folder: string; lockFree: boolean }>();

/**
 * The preload library (see above), built with `cc` into the temp folder
 * once per source version; undefined (and a line on stderr) when it cannot be built here.
 */
export function diskFaultLibrary(): string | undefined {
  if (library !== undefined) return library ?? undefined;
  const source = readFileSync(LIBRARY_SOURCE);
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 12);
  const built = join(tmpdir(), `platform-disk-faults-${hash}.so`);
  try {
    if (!existsSync(built)) {
      // Built beside it and renamed: runs building at once never load half a file.
      const partial = `${built}.${process.pid}`;
      execFileSync('cc', ['-shared', '-fPIC', '-O2', '-o', partial, LIBRARY_SOURCE, '-ldl'], {
        stdio: 'pipe',
      });
      renameSync(partial, built);
    }
    library = built;
  } catch (error) {
    process.stderr.write(
      `disk faults: no lock-free faults, and plain writes to files will not fail (cannot build ${LIBRARY_SOURCE}: ${(error as Error).message.split('\n')[0]})\n`,
    );
    library = null;
  }
  return library ?? undefined;
}
export const ENOSPC = 28;
export const EIO = 5;

/** Whether `fiu-run` and `fiu-ctrl` are installed (a test skips loudly without them). */
function fiuAvailable(): boolean {
  try {
    execFileSync('sh', ['-c', 'command -v fiu-run && command -v fiu-ctrl'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts `command` with its disk faults switchable by its pid (setDiskFull and the others
 * below). With `lockFree` (the default wherever the library builds) the library alone
 * fails the calls; else the process runs under `fiu-run -x` (which execs it: the pid is
 * the program's), with the library preloaded first only for `fileWrites`. With
 * `startFull` the disk is full from its first instruction (under fiu-run: not plain file
 * writes); with `fileWrites` plain writes to files fail too.
 *
 * fiu-run is only the fallback of a machine without `cc`: libfiu's preload takes its locks
 * in every wrapped call, and a process deadlocks on them as it forks (render README, the
 * fork hang) or as it loads a native module (`analytics build` loading DuckDB under Node
 * 22: one run in 20 hung, its main thread in the loader's lock waiting for libfiu's, a
 * libuv worker inside libfiu waiting for the loader's).
 */
export function spawnUnderFiu(
  command: string,
  args: string[],
  options: SpawnOptions,
  startFull = false,
  {
    fileWrites = false,
    lockFree = diskFaultLibrary() !== undefined,
  }: { fileWrites?: boolean; lockFree?: boolean } = {},
): ChildProcess {
  const preload = lockFree || fileWrites ? diskFaultLibrary() : undefined;
  if (lockFree && !preload) throw new Error(`disk faults: lockFree needs ${LIBRARY_SOURCE} built`);
  const viaFiu = !lockFree;
  const enable = viaFiu && startFull ? faultCommands(FIU_POINTS, true, ENOSPC) : [];
  if (!preload) return spawn('fiu-run', ['-x', ...enable, command, ...args], options);
  const folder = mkdtempSync(join(tmpdir(), 'disk-faults-'));
  const inherited = options.env ?? process.env;
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    PLATFORM_DISK_FAULTS_DIR: folder,
    PLATFORM_DISK_FAULTS_FILE_WRITES: fileWrites ? '1' : '0',
  };
  if (startFull && lockFree) env.PLATFORM_DISK_FAULTS_START = String(ENOSPC);
  else delete env.PLATFORM_DISK_FAULTS_START;
  const child = viaFiu
    ? // The library first, through `sh -c … exec` (which keeps the pid): fiu-run sets LD_PRELOAD.
      spawn(
        'fiu-run',
        [
          '-x',
          ...enable,
          'sh',
          '-c',
          `LD_PRELOAD="${preload} $LD_PRELOAD" exec "$0" "$@"`,
          command,
          ...args,
        ],
        { ...options, env },
      )
    : spawn(command, args, {
        ...options,
        env: { ...env, LD_PRELOAD: [preload, inherited.LD_PRELOAD].filter(Boolean).join(' ') },
      });
  if (child.pid === undefined) {
    rmSync(folder, { recursive: true, force: true });
    return child;
  }
  const pid = child.pid;
  switches.set(pid, { folder, lockFree });
  child.once('exit', () => {
    switches.delete(pid);
    // The children it started carry the library and each makes its switch file here as it
    // starts: one still starting after a kill adds a file while the folder goes, and the
    // removal meets ENOTEMPTY (a fresh-clone `npm test`, 28 Nov 2026: thrown from this
    // handler, it failed a test that had passed). So it is retried, and a folder left
    // behind in the temp directory is not worth failing the caller for.
    try {
      rmSync(folder, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
    } catch {
      // left in tmpdir
    }
  });
  return child;
}

const faultCommands = (points: readonly string[], on: boolean, errno: number) =>
  points.flatMap((name) => [
    '-c',
    on ? `enable name=${name},failinfo=${errno}` : `disable name=${name}`,
  ]);

/**
 * Turns `points` of process `pid` on (failing with `errno`) or off: through its switch file
 * when spawnUnderFiu started it with the library, else through fiu-ctrl.
 */
function switchPoints(pid: number, points: readonly FaultPoint[], on: boolean, errno: number) {
  const started = switches.get(pid);
  const viaFile = started
    ? points.filter((point) => started.lockFree || point === 'platform/file/write')
    : [];
  const viaCtrl = points.filter((point) => !viaFile.includes(point));
  if (viaCtrl.length > 0)
    // A process hung in libfiu's locks never answers: fail, not hang with it.
    execFileSync('fiu-ctrl', [...faultCommands(viaCtrl, on, errno), String(pid)], {
      stdio: 'ignore',
      timeout: 30_000,
    });
  if (!started || viaFile.length === 0) return;
  // The process maps the file whole: it is never shorter than a slot a second.
  const fd = openSync(
    join(started.folder, String(pid)),
    constants.O_RDWR | constants.O_CREAT,
    0o600,
  );
  try {
    const size = fstatSync(fd).size;
    if (size < SWITCH_POINTS.length)
      writeSync(fd, Buffer.alloc(SWITCH_POINTS.length - size), 0, undefined, size);
    const value = Buffer.from([on ? errno : 0]);
    for (const point of viaFile) writeSync(fd, value, 0, 1, SWITCH_POINTS.indexOf(point));
  } finally {
    closeSync(fd);
  }
}

/** Makes the disk of process `pid` full (errno 28, or EIO with `errno`) or frees it. */
export function setDiskFull(pid: number, full: boolean, errno = ENOSPC): void {
  switchPoints(pid, DISK_FAULT_POINTS, full, errno);
}

/**
 * Makes only fsync and fdatasync of process `pid` fail (EIO by default), or stops it: the
 * writes reach the page cache but cannot be made durable (the fsyncgate case).
 */
export function setSyncFailing(pid: number, failing: boolean, errno = EIO): void {
  switchPoints(pid, SYNC_FAULT_POINTS, failing, errno);
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
  switchPoints(pid, [`posix/io/sync/${call}`], failing, errno);
}

/** The skip reason of a test that needs fiu-run itself (printed loudly), or undefined. */
export function fiuSkipReason(): string | undefined {
  return skipReason('fiu-run and fiu-ctrl (Debian fiu-utils)', fiuAvailable());
}

/** Whether spawnUnderFiu can fault a disk here: the lock-free library built, else fiu-run. */
export function diskFaultsAvailable(): boolean {
  return diskFaultLibrary() !== undefined || fiuAvailable();
}

/** The skip reason of a test that needs disk faults (printed loudly), or undefined. */
export function diskFaultsSkipReason(): string | undefined {
  return skipReason(
    `disk faults: ${LIBRARY_SOURCE} built with cc, or fiu-run and fiu-ctrl (Debian fiu-utils)`,
    diskFaultsAvailable(),
  );
}

/**
 * Runs a service's `src/main.ts` (in `serviceDir`) with disk faults (spawnUnderFiu) for
 * one test, on a free port with its data in a throw-away folder; the test's end kills it
 * and removes the folder. `stderr()` is what it printed there (for a failure message).
 */
export async function startServiceUnderFiu(
  t: { after(fn: () => void): void },
  serviceDir: string,
  env: Record<string, string>,
  startFull = false,
) {
  const work = mkdtempSync(join(tmpdir(), 'disk-fault-'));
  const port = await freePort();
  // Bundled once, as the chaos harnesses run it: tsx's loader costs about a second of CPU
  // a start, and these tests start the service again and again.
  const main = await bundleEntry(serviceDir, join(serviceDir, 'src', 'main.ts'));
  const child = spawnUnderFiu(
    process.execPath,
    [main],
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
