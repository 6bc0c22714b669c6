/**
 * Engines of one's own for fault runs (issue 21, `npm run chaos`): a PostgreSQL cluster
 * (initdb + pg_ctl from /usr/lib/postgresql/<n>/bin) a nats-server with JetStream and a
 * redis-server,
 * each on a free port with a throw-away data folder, never the machine's shared ones. Each
 * can be killed with SIGKILL and started again on the same port and folder; nats-server
 * can also restart from a copy of its store taken earlier (a power loss: JetStream
 * acknowledges writes it has not fsynced yet).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chownSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { freePort } from './free-port.js';

export interface OwnEngine {
  readonly name: string;
  readonly port: number;
  readonly url: string;
  /** SIGKILL, no shutdown. */
  kill(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

async function waitPort(port: number, open: boolean, what: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ((await portOpen(port)) === open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what}: port ${port} never ${open ? 'opened' : 'closed'}`);
}

function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  if (!versions[0]) throw new Error('no PostgreSQL under /usr/lib/postgresql');
  return join(root, versions[0], 'bin');
}

/** A PostgreSQL cluster in a temp folder (run as user `postgres` when this process is root). */
export async function startOwnPostgres(): Promise<OwnEngine> {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), 'chaos-pg-'));
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const pw = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    chownSync(dir, Number(pw.stdout.trim()), Number(gid.stdout.trim()));
  }
  const run = (args: string[]) => {
    const [cmd, ...rest] = asRoot ? ['runuser', '-u', 'postgres', '--', ...args] : args;
    const result = spawnSync(cmd!, rest, { encoding: 'utf8' });
    if (result.status !== 0)
      throw new Error(`${args[0]} failed: ${result.stderr || result.stdout}`.slice(0, 2000));
  };
  try {
    run([join(bin, 'initdb'), '-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const port = await freePort();
  const pgCtlStart = () => {
    try {
      startCluster();
    } catch (error) {
      // pg_ctl says only "Examine the log output": the log's end says why.
      const tail = readFileSync(join(dir, 'log'), 'utf8').split('\n').slice(-8).join('\n');
      throw new Error(`${(error as Error).message}\n${tail}`);
    }
  };
  const startCluster = () =>
    run([
      join(bin, 'pg_ctl'),
      '-D',
      data,
      '-l',
      join(dir, 'log'),
      '-w',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=on -c max_connections=50`,
      'start',
    ]);
  try {
    pgCtlStart();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const postmasterPid = () =>
    Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return {
    name: 'postgres',
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async kill() {
      const pid = postmasterPid();
      // The whole engine dies, as in a crash of its machine or container: the postmaster
      // and every backend. Backends left alone exit only when they next look for their
      // postmaster, and while one lives the new postmaster refuses to start (its shared
      // memory is still attached).
      const children = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
        .stdout.split('\n')
        .filter(Boolean)
        .map(Number);
      for (const target of [pid, ...children]) {
        try {
          process.kill(target, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      await waitPort(port, false, 'postgres kill');
      // Gone means reaped: a new postmaster refuses to start while the PID in
      // postmaster.pid exists, and a zombie still exists.
      const exists = (target: number) => existsSync(`/proc/${target}`);
      // Bounded by the kernel and init reaping SIGKILLed processes, not by PostgreSQL.
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && [pid, ...children].some(exists))
        await new Promise((resolve) => setTimeout(resolve, 50));
      // Not reaped in time: the lock names a dead postmaster, so it is stale.
      if (exists(pid)) rmSync(join(data, 'postmaster.pid'), { force: true });
    },
    async start() {
      pgCtlStart();
      await waitPort(port, true, 'postgres start');
    },
    async stop() {
      try {
        run([join(bin, 'pg_ctl'), '-D', data, '-m', 'immediate', 'stop']);
      } catch {
        // already down
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface OwnNats extends OwnEngine {
  /** Copies the store now (the state a power loss a few seconds later returns to). */
  snapshot(): void;
  /** SIGKILL, then the store is replaced by the last snapshot (call `start` after). */
  powerLoss(): Promise<void>;
}

export async function startOwnNats(): Promise<OwnNats> {
  const dir = mkdtempSync(join(tmpdir(), 'chaos-nats-'));
  const store = join(dir, 'store');
  const copy = join(dir, 'snapshot');
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', store], {
      stdio: 'ignore',
    });
    await waitPort(port, true, 'nats-server start');
  };
  const kill = async () => {
    const running = child;
    child = undefined;
    await killAndWait(running);
  };
  await startOrCleanUp(start, kill, dir);
  return {
    name: 'nats',
    port,
    url: `nats://127.0.0.1:${port}`,
    kill,
    start,
    snapshot() {
      rmSync(copy, { recursive: true, force: true });
      cpSync(store, copy, { recursive: true });
    },
    async powerLoss() {
      await kill();
      if (!existsSync(copy)) return;
      rmSync(store, { recursive: true, force: true });
      cpSync(copy, store, { recursive: true });
    },
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A redis-server of one's own, configured as `.ci/run` starts the shared one (no RDB, no
 * AOF): a `kill -9` and restart comes back empty, every key lost (the worst case a
 * service on Redis must survive).
 */
export async function startOwnRedis(): Promise<OwnEngine> {
  const dir = mkdtempSync(join(tmpdir(), 'chaos-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      'redis-server',
      ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'],
      { cwd: dir, stdio: 'ignore' },
    );
    await waitPort(port, true, 'redis-server start');
  };
  const kill = async () => {
    const running = child;
    child = undefined;
    await killAndWait(running);
  };
  await startOrCleanUp(start, kill, dir);
  return {
    name: 'redis',
    port,
    url: `redis://127.0.0.1:${port}`,
    kill,
    start,
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `kill -9` of an engine process, resolved once it has exited (nothing if it already has). */
async function killAndWait(running: ChildProcess | undefined): Promise<void> {
  if (!running || running.exitCode !== null) return;
  const exited = new Promise((resolve) => running.once('exit', resolve));
  running.kill('SIGKILL');
  await exited;
}

/** Starts an engine; if it does not come up, kills what was spawned and removes its folder. */
async function startOrCleanUp(
  start: () => Promise<void>,
  kill: () => Promise<void>,
  dir: string,
): Promise<void> {
  try {
    await start();
  } catch (error) {
    await kill();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
