/**
 * `npm run chaos -- --service render --faults N --seed S` (issue 21): the render service
 * as separate processes of `src/main.ts`, bundled once per run and started by plain node
 * (one API instance with dispatcher and reaper, `RUN_WORKER=false`, and two worker-only
 * instances) on its own PostgreSQL and Redis (free ports, throw-away folders; never the
 * machine's shared ones), reached through TCP proxies, with artifacts in an s3rver
 * bucket. A paced load of submissions of the made replay (tiny renders, each a new client
 * address; `--render-options` may make them shorter) runs while one fault at a time is
 * injected at seeded random points:
 *
 * - kill -9 of the API instance or of a worker (then started again);
 * - kill -9 and restart of PostgreSQL or Redis (Redis as `.ci/run` starts it, without
 *   persistence: it comes back empty, every task lost);
 * - the connection to PostgreSQL or Redis cut (refused) or stalled for two seconds.
 *
 * With `--engines embedded` the service runs as one process on its embedded defaults
 * (PGlite and files under DATA_DIR, the in-process queue), started with packages/testing's
 * disk-fault library preloaded (spawnUnderFiu), and the faults are:
 *
 * - kill -9 of the service (started again);
 * - the disk full or failing under it for 2–4 s (pwrite, pwritev, fsync, fdatasync and
 *   ftruncate fail with ENOSPC or EIO): every answer meanwhile is a 202
 *   stored before the fault, or a 503 with a `detail` and `Retry-After`;
 * - a power loss: the process is paused (SIGSTOP) and DATA_DIR copied (the image the disk
 *   holds if nothing written after this moment reaches it), it runs on for 1–3 s, then it
 *   is killed and started again from that copy. PGlite never fsyncs (Emscripten's fsync
 *   is a no-op), so what the kernel had not written back is what such a loss discards:
 *   the copy stands for a writeback that stopped at that moment. A job answered 202 in
 *   that window may be gone (counted apart, as the README's contract says); every job
 *   answered before it must be there, and a render whose completion the loss undid is
 *   rendered again, not counted twice.
 *
 * Every answer is kept. At the end it waits for the jobs and checks: every job answered
 * 202 is `completed` or `failed` with a reason; no job was rendered by two workers at
 * once (each claim is logged by the worker; a claim while an earlier claimant of the same
 * job was alive and had not finished is a duplicate) nor completed twice; every video in
 * the bucket is whole (ffprobe reads it) and every completed job's video and thumbnail
 * exist; no answer was a 5xx other than 503. It prints one table and exits 1 on a
 * violation.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  createObjectStore,
  createSqlDatabase,
  type ObjectStore,
  type SqlDatabase,
  seededRandom,
} from '@platform/core';
import {
  EIO,
  ENOSPC,
  bundleEntry,
  copyWhilePaused,
  diskFaultLibrary,
  guardEngines,
  kindDrawer,
  madeOsuFixture,
  madeOsuFixturesDir,
  quantile,
  RestartableService,
  restoreCopy,
  setDiskFull,
  sleep,
  spawnUnderFiu,
  startOwnPostgres,
  startOwnRedis,
  startS3Server,
  startTcpProxy,
  until,
  untilSettled,
} from '@platform/testing';

const { values: argv } = parseArgs({
  options: {
    faults: { type: 'string', default: '20' },
    seed: { type: 'string', default: '1' },
    kinds: { type: 'string' },
    service: { type: 'string', default: 'render' },
    /** `postgres` (PostgreSQL, Redis, S3; three processes) or `embedded` (one process on its defaults). */
    engines: { type: 'string', default: 'postgres' },
    /** Quiet time before each fault: gap-ms plus up to twice as much again (seeded). */
    'gap-ms': { type: 'string', default: '2000' },
    /** Kinds drawn in rounds, each a seeded shuffle of all kinds (the short run in `npm test`). */
    'every-kind': { type: 'boolean', default: false },
    /** One submission every pace-ms. */
    'pace-ms': { type: 'string', default: '1500' },
    /** 0: recovery times are reported, not held to a bound (timed checks do not belong in tests). */
    'recovery-bound-ms': { type: 'string', default: '10000' },
    /**
     * Render parameters sent with each submission, `field=value,…` (the form's own fields,
     * e.g. `fps=30,results_screen=false,motion_blur=false`: a shorter, cheaper clip for the
     * short run). None by default: the renderer's defaults, as the long runs had.
     */
    'render-options': { type: 'string', default: '' },
  },
});
const FAULTS = Number(argv.faults);
const SEED = Number(argv.seed);
const GAP_MS = Number(argv['gap-ms']);
const PACE_MS = Number(argv['pace-ms']);
const RECOVERY_BOUND_MS = Number(argv['recovery-bound-ms']);
const REQUEST_TIMEOUT_MS = 15_000;
const RENDER_FIELDS = argv['render-options']!.split(',')
  .filter(Boolean)
  .map((pair) => pair.split('=') as [string, string]);
/**
 * How long the first 202 after a fault is waited for: a restart takes minutes on a
 * loaded machine; an engine's return finds the service up (each fault waits for that),
 * so a minute is far past the 10 s bound.
 */
const RESTART_WINDOW_MS = 300_000;
const ENGINE_WINDOW_MS = 60_000;
/** The reaper's windows, short so a lost worker or task is noticed within the run. */
const STUCK_JOB_SECONDS = 10;
const REDISPATCH_AFTER_SECONDS = 10;
const SERVICE_DIR = fileURLToPath(new URL('..', import.meta.url));
const MAIN = join(SERVICE_DIR, 'src', 'main.ts');

const random = seededRandom(SEED);
const faultRandom = seededRandom(SEED * 7919 + 1);
const pick = <T>(items: readonly T[], from = random): T =>
  items[Math.floor(from() * items.length)]!;
const log = (line: string) =>
  console.log(`[chaos ${new Date().toISOString().slice(11, 19)}] ${line}`);

const ENGINE_KINDS = [
  'kill -9 api',
  'kill -9 worker',
  'kill -9 postgres',
  'kill -9 redis',
  'cut postgres',
  'cut redis',
  'stall postgres',
  'stall redis',
] as const;
const EMBEDDED_KINDS = ['kill -9 service', 'disk full', 'disk failing', 'power loss'] as const;
const EMBEDDED = argv.engines === 'embedded';
if (!EMBEDDED && argv.engines !== 'postgres')
  throw new Error(`--engines ${argv.engines}: postgres or embedded`);
const KINDS: readonly FaultKind[] = EMBEDDED ? EMBEDDED_KINDS : ENGINE_KINDS;
type FaultKind = (typeof ENGINE_KINDS)[number] | (typeof EMBEDDED_KINDS)[number];
/** Faults after which the service starts again (its start-up is not an engine's return). */
const RESTARTS = new Set<FaultKind>([
  'kill -9 api',
  'kill -9 worker',
  'kill -9 service',
  'power loss',
]);

interface Answer {
  status: number | 'none';
  jobId?: string;
  detail?: string;
  retryAfter?: string;
  startedAt: number;
  endedAt: number;
}

interface Instance {
  name: string;
  role: Record<string, string>;
  /** Its process; moved to a fresh port when its own was taken while it was down. */
  process?: RestartableService;
  /** pid → when it was SIGKILLed (by the harness). */
  killedAt: Map<number, number>;
}

/** A worker's log line about a job (pino JSON). */
interface JobEvent {
  jobId: string;
  pid: number;
  time: number;
  msg: string;
}

const processOf = (instance: Instance) => instance.process!;

// Stopped from outside (the test's timeout, Ctrl-C), even while the engines start, or
// failing before its checks: no engine of ours is left running.
const guard = guardEngines();

async function main(): Promise<void> {
  const kinds = (argv.kinds?.split(',') as FaultKind[] | undefined) ?? [...KINDS];
  for (const kind of kinds)
    if (!KINDS.includes(kind)) throw new Error(`unknown fault ${kind} (${KINDS.join(', ')})`);
  // Only a disk fault needs the disk-fault library preloaded; the other faults run the
  // service as it ships. (Under libfiu's fiu-run, which the library replaced, the service
  // hung at a fork or a SIGCHLD in about one disk fault of 40: packages/testing
  // native/disk-faults.c says why.)
  const underFiu = EMBEDDED && kinds.some((kind) => kind.startsWith('disk'));
  if (underFiu && !diskFaultLibrary())
    throw new Error('the disk faults need cc to build packages/testing native/disk-faults.c');
  const work = mkdtempSync(join(tmpdir(), 'chaos-render-'));
  const dataDir = join(work, 'data');
  log(
    `seed ${SEED}, ${FAULTS} faults of ${kinds.join(', ')}; engines ${argv.engines}; folder ${work}`,
  );
  const common = {
    ...process.env,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    DATA_DIR: dataDir,
    SIGNING_SECRET: 'render-chaos-signing-secret',
    BEATMAPS_DIR: madeOsuFixturesDir(),
    RENDER_WIDTH: '320',
    RENDER_HEIGHT: '180',
    STUCK_JOB_SECONDS: String(STUCK_JOB_SECONDS),
    REDISPATCH_AFTER_SECONDS: String(REDISPATCH_AFTER_SECONDS),
    // A fault may cost a job more dispatches than a healthy run ever needs.
    MAX_DISPATCHES: '10',
    MAX_QUEUED: '1000',
    MAX_RENDERING: '1000',
    // Every submission is the same replay: each must be rendered, not reused.
    REUSE_RENDERS: 'false',
  };
  // The checks read the engines directly (not through the proxies); on the embedded
  // defaults they open the service's own folder once it is stopped.
  let direct: SqlDatabase | undefined;
  let store: ObjectStore;
  let env: NodeJS.ProcessEnv;
  let postgres: Awaited<ReturnType<typeof startOwnPostgres>> | undefined;
  let redis: Awaited<ReturnType<typeof startOwnRedis>> | undefined;
  let pgProxy: Awaited<ReturnType<typeof startTcpProxy>> | undefined;
  let redisProxy: Awaited<ReturnType<typeof startTcpProxy>> | undefined;
  if (EMBEDDED) {
    // No engine URL from this shell may reach the service: it runs on its defaults.
    env = Object.fromEntries(
      Object.entries(common).filter(([name]) => !/^(DATABASE_URL|REDIS_URL|S3_)/.test(name)),
    );
    store = createObjectStore({
      fs: { root: join(dataDir, 'render', 'objects'), signingSecret: common.SIGNING_SECRET },
    });
  } else {
    // Side by side: none waits for another.
    let s3: Awaited<ReturnType<typeof startS3Server>>;
    [postgres, redis, s3] = await Promise.all([
      guard.start(startOwnPostgres(), (engine) => engine.stop()),
      guard.start(startOwnRedis(), (engine) => engine.stop()),
      guard.start(startS3Server(), (engine) => engine.stop()),
    ]);
    pgProxy = await guard.start(
      startTcpProxy({ host: '127.0.0.1', port: postgres.port }),
      (proxy) => proxy.close(),
    );
    redisProxy = await guard.start(
      startTcpProxy({ host: '127.0.0.1', port: redis.port }),
      (proxy) => proxy.close(),
    );
    direct = await createSqlDatabase({ url: postgres.url, dataDir: 'unused', poolSize: 2 });
    store = createObjectStore({
      s3: {
        endpoint: s3.endpoint,
        bucket: s3.bucket,
        region: s3.region,
        credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      },
    });
    env = {
      ...common,
      DATABASE_URL: `postgres://postgres@127.0.0.1:${pgProxy.port}/postgres`,
      REDIS_URL: `redis://127.0.0.1:${redisProxy.port}`,
      S3_ENDPOINT: s3.endpoint,
      S3_BUCKET: s3.bucket,
      S3_REGION: s3.region,
      S3_ACCESS_KEY_ID: s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    };
  }
  const instances: Instance[] = EMBEDDED
    ? [{ name: 'service', role: {}, killedAt: new Map() }]
    : [
        { name: 'api', role: { RUN_WORKER: 'false' }, killedAt: new Map() },
        ...['worker-1', 'worker-2'].map((name) => ({
          name,
          role: { RUN_DISPATCHER: 'false', RUN_REAPER: 'false' },
          killedAt: new Map<number, number>(),
        })),
      ];
  const api = instances[0]!;
  const workers = EMBEDDED ? instances : instances.slice(1);
  /** The API's address now (the load follows a move to a fresh port). */
  const base = () => processOf(api).url();
  const events: JobEvent[] = [];
  const serviceLog = createWriteStream(join(work, 'service.log'));

  // The service runs bundled by plain node (packages/testing's bundleEntry): the same code,
  // without tsx's loader and per-file transform at every start, which cost each restart (a
  // kill -9 of an instance, a power loss) about 1.2 s more CPU (README, "Chaos (issue 21)").
  const main = await bundleEntry(SERVICE_DIR, MAIN);
  const spawnInstance = (instance: Instance, port: number) => {
    const options = {
      cwd: SERVICE_DIR,
      env: { ...env, ...instance.role, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'],
      // Its own process group, killed whole: a child it forked (chromium, ffmpeg) must not
      // outlive it holding its port.
      detached: EMBEDDED,
    };
    // The child's pid is the service's: its disk faults are switched by it.
    const child = underFiu
      ? spawnUnderFiu(process.execPath, [main], options, false, { lockFree: true })
      : spawn(process.execPath, [main], options);
    let rest = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      const lines = (rest + chunk.toString()).split('\n');
      rest = lines.pop()!;
      for (const line of lines) {
        if (!line.includes('"jobId"') && !/"level":[56]0/.test(line)) continue;
        serviceLog.write(`${instance.name} ${line}\n`);
        try {
          const entry = JSON.parse(line) as { jobId?: string; msg: string; time: string | number };
          if (entry.jobId)
            events.push({
              jobId: entry.jobId,
              pid: child.pid!,
              // The core logger writes ISO times.
              time: typeof entry.time === 'number' ? entry.time : Date.parse(entry.time),
              msg: entry.msg,
            });
        } catch {
          // not a log line
        }
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => serviceLog.write(`${instance.name} ${chunk}`));
    return child;
  };
  for (const instance of instances)
    instance.process = await RestartableService.create({
      name: instance.name,
      portNames: ['PORT'],
      log,
      spawn: (ports) => spawnInstance(instance, ports.PORT!),
    });
  const start = (instance: Instance) => processOf(instance).start();
  const kill = async (instance: Instance) => {
    const running = processOf(instance).child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    await processOf(instance).kill(EMBEDDED);
    instance.killedAt.set(running.pid!, Date.now());
  };
  const healthy = async (instance: Instance) =>
    (
      await fetch(`${processOf(instance).url()}/health`, {
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      }).catch(() => undefined)
    )?.status === 200;
  const crashes = () => instances.reduce((n, i) => n + processOf(i).crashes, 0);
  const relocations = () => instances.reduce((n, i) => n + processOf(i).relocations, 0);
  guard.onSignal(() => {
    for (const instance of instances) {
      instance.process?.stop();
      const pid = instance.process?.child?.pid;
      if (pid === undefined) continue;
      try {
        process.kill(EMBEDDED ? -pid : pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });

  const answers: Answer[] = [];
  const faults: Array<{ kind: FaultKind; recoveryMs: number }> = [];
  /** Power losses: what was answered between the copy and the kill may be gone. */
  const powerLosses: Array<{ copiedAt: number; killedAt: number; pid: number }> = [];
  /** The disk full or failing: each answer meanwhile is checked. */
  const diskFaults: Array<{ from: number; to: number }> = [];
  const replay = readFileSync(madeOsuFixture('perfect.osr'));
  let stopLoad = false;
  try {
    // All at once (the migrations take a lock; a worker waits for the API's).
    for (const instance of instances) await start(instance);
    await until('every instance answers /health', 240_000, async () =>
      (await Promise.all(instances.map(healthy))).every(Boolean),
    );
    log(`service up on ${base()}`);

    let n = 0;
    const submit = async () => {
      n += 1;
      const form = new FormData();
      form.append('replay', new Blob([replay]), 'chaos.osr');
      for (const [field, value] of RENDER_FIELDS) form.append(field, value);
      const answer: Answer = { status: 'none', startedAt: Date.now(), endedAt: 0 };
      try {
        const response = await fetch(`${base()}/v1/render`, {
          method: 'POST',
          body: form,
          // A new client each time (a loopback peer is a trusted proxy): the per-address
          // limits and the daily quota do not bite.
          headers: { 'edge-connecting-ip': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` },
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        answer.status = response.status;
        const retryAfter = response.headers.get('retry-after');
        if (retryAfter) answer.retryAfter = retryAfter;
        const body = (await response.json().catch(() => ({}))) as {
          job_id?: string;
          detail?: string;
        };
        if (body.detail) answer.detail = body.detail;
        // A 503 with a job id: its commit was in doubt and it may be stored (then it must finish).
        if (response.status === 202 || (response.status === 503 && body.job_id))
          answer.jobId = body.job_id!;
        else if (response.status >= 500 && response.status !== 503)
          log(`unexpected ${response.status}: ${JSON.stringify(body)}`);
      } catch {
        answer.status = 'none';
      } finally {
        answer.endedAt = Date.now();
        answers.push(answer);
      }
    };
    /** Ends the load's current pause: the next submission goes now. */
    let wake = () => {};
    const load = (async () => {
      const pending = new Set<Promise<void>>();
      while (!stopLoad) {
        const request = submit();
        pending.add(request);
        void request.finally(() => pending.delete(request));
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, PACE_MS);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      await Promise.all(pending);
    })();

    const firstSuccessAfter = async (since: number, windowMs: number): Promise<number> => {
      const deadline = Date.now() + windowMs;
      while (Date.now() < deadline) {
        const ok = answers.find((a) => a.status === 202 && a.startedAt >= since);
        if (ok) return ok.endedAt - since;
        await sleep(50);
      }
      return Number.POSITIVE_INFINITY;
    };

    // SIGUSR2: no more faults; the load stops and the end state is checked as after the
    // last one, so a long run that must end early still gives its lost and duplicated counts.
    let finishEarly = false;
    process.once('SIGUSR2', () => {
      finishEarly = true;
      log('SIGUSR2: no more faults; checking the end state');
    });
    const nextKind = kindDrawer(kinds, faultRandom, argv['every-kind']);
    for (let i = 0; i < FAULTS && !finishEarly; i += 1) {
      await sleep(GAP_MS + faultRandom() * 2 * GAP_MS);
      // Each fault finds the API (what answers 202) serving, so an engine's recovery is
      // measured from its return with the service up, not from an API restart still under
      // way (one under tsx took over 60 s at load 31-35 and made the next faults' 202s
      // "never"). A worker still restarting does not hold the 202s back.
      await until('the API serves', RESTART_WINDOW_MS, () => healthy(api)).catch(() =>
        log(`the API does not serve after ${RESTART_WINDOW_MS} ms; faulting on`),
      );
      const kind = nextKind();
      let returnedAt: number;
      switch (kind) {
        case 'kill -9 service':
        case 'kill -9 api':
        case 'kill -9 worker': {
          const victim = kind === 'kill -9 worker' ? pick(workers, faultRandom) : api;
          await kill(victim);
          returnedAt = Date.now();
          await start(victim);
          break;
        }
        case 'disk full':
        case 'disk failing': {
          const pid = processOf(api).child!.pid!;
          const from = Date.now();
          setDiskFull(pid, true, kind === 'disk full' ? ENOSPC : EIO);
          await sleep(2000 + faultRandom() * 2000);
          setDiskFull(pid, false);
          returnedAt = Date.now();
          diskFaults.push({ from, to: returnedAt });
          break;
        }
        case 'power loss': {
          // Paused, the page cache holds every write made so far and no later one: the
          // copy is the disk as a writeback stopped at this moment left it.
          const running = processOf(api).child!;
          const copiedAt = copyWhilePaused(running, dataDir, join(work, 'disk'));
          await sleep(1000 + faultRandom() * 2000);
          await kill(api);
          powerLosses.push({
            copiedAt,
            killedAt: api.killedAt.get(running.pid!)!,
            pid: running.pid!,
          });
          restoreCopy(join(work, 'disk'), dataDir);
          returnedAt = Date.now();
          await start(api);
          break;
        }
        case 'kill -9 postgres':
        case 'kill -9 redis': {
          const engine = kind === 'kill -9 postgres' ? postgres! : redis!;
          await engine.kill();
          await sleep(500 + faultRandom() * 1500);
          await engine.start();
          returnedAt = Date.now();
          break;
        }
        default: {
          const [action, engine] = kind.split(' ') as ['cut' | 'stall', 'postgres' | 'redis'];
          const proxy = engine === 'postgres' ? pgProxy! : redisProxy!;
          proxy[action]();
          await sleep(2000);
          proxy.restore();
          returnedAt = Date.now();
        }
      }
      // A submission at the return itself, and after a restart of the API another once it
      // answers /health: the first 202 is timed from there, not from the load's next turn
      // (up to a pace later, which every fault used to wait).
      wake();
      if (RESTARTS.has(kind) && kind !== 'kill -9 worker')
        void until('the API serves again', RESTART_WINDOW_MS, () => healthy(api)).then(
          () => wake(),
          () => undefined,
        );
      const recoveryMs = await firstSuccessAfter(
        returnedAt,
        RESTARTS.has(kind) ? RESTART_WINDOW_MS : ENGINE_WINDOW_MS,
      );
      faults.push({ kind, recoveryMs });
      log(`fault ${i + 1}/${FAULTS}: ${kind}; accepting again after ${recoveryMs} ms`);
    }
    stopLoad = true;
    await load;

    // The end state: every accepted job finished. The bound is progress, not time: the
    // reaper's windows plus a few renders on a loaded machine.
    const accepted = answers.filter((a) => a.status === 202).map((a) => a.jobId!);
    const inDoubt = answers.filter((a) => a.status === 503 && a.jobId).map((a) => a.jobId!);
    /** Every job that must finish if stored: the accepted, and the in-doubt ones found stored. */
    const watched = [...accepted, ...inDoubt];
    log(
      `load done: ${answers.length} submissions, ${accepted.length} accepted; waiting for the jobs`,
    );
    const unfinished = async () => {
      if (!direct) {
        // PGlite is the service's own: asked over HTTP while it runs. A job it does not
        // know will never finish (the checks below say whether that is allowed).
        const left: string[] = [];
        for (const id of watched) {
          const response = await fetch(`${base()}/v1/jobs/${id}`);
          const job = (await response.json()) as { status?: string };
          if (response.status !== 404 && job.status !== 'completed' && job.status !== 'failed')
            left.push(id);
        }
        return left;
      }
      // A job not stored never finishes: a 202's is counted as lost below.
      const { rows } = await direct.query<{ id: string }>(
        `SELECT id::text AS id FROM render_jobs
         WHERE id = ANY($1::uuid[]) AND status NOT IN ('completed', 'failed')`,
        [watched],
      );
      return rows.map((r) => r.id);
    };
    await untilSettled(
      (STUCK_JOB_SECONDS + REDISPATCH_AFTER_SECONDS) * 1000 + 90_000,
      async () => (await unfinished()).length,
    );
    log('the jobs are settled; checking the end state');
    if (EMBEDDED) {
      // The service stops; its folder is opened as it left it.
      api.process?.stop();
      await kill(api);
      direct = await createSqlDatabase({ dataDir: join(dataDir, 'render', 'pglite') });
    }
    const db = direct!;
    const problems: string[] = [];
    const { rows: jobs } = await db.query<{
      id: string;
      status: string;
      error: string | null;
      video_key: string | null;
      thumbnail_key: string | null;
    }>(
      `SELECT id::text AS id, status, error, video_key, thumbnail_key FROM render_jobs
       WHERE id = ANY($1::uuid[])`,
      [watched],
    );
    const byId = new Map(jobs.map((j) => [j.id, j]));
    // Answered after a power loss's copy and before its kill: the contract lets it go
    // (PGlite does not fsync); counted apart, not as lost.
    const inLossWindow = (a: Answer) =>
      powerLosses.some((p) => a.endedAt > p.copiedAt && a.startedAt < p.killedAt);
    const lostToPowerLoss: string[] = [];
    const lost: string[] = [];
    for (const a of answers.filter((a) => a.status === 202 && !byId.has(a.jobId!)))
      (inLossWindow(a) ? lostToPowerLoss : lost).push(a.jobId!);
    for (const id of lost) problems.push(`job ${id} answered 202 is not in the database`);
    for (const id of await unfinished())
      if (byId.has(id)) problems.push(`job ${id} never finished (${byId.get(id)!.status})`);
    const failed = jobs.filter((j) => j.status === 'failed');
    for (const job of failed)
      if (!job.error) problems.push(`job ${job.id} failed without a reason`);

    // Whole artifacts: every completed job's video and thumbnail exist, and every video
    // in the bucket (orphans of killed renders included) is a playable file.
    const probe = (bytes: Buffer) => {
      const file = join(work, 'probe.mp4');
      writeFileSync(file, bytes);
      try {
        const out = execFileSync(
          'ffprobe',
          ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file],
          { encoding: 'utf8' },
        );
        return Number(out.trim()) > 0;
      } catch {
        return false;
      }
    };
    let videosProbed = 0;
    for (const job of jobs.filter((j) => j.status === 'completed')) {
      if (!job.video_key || !job.thumbnail_key) {
        problems.push(`completed job ${job.id} has no video or thumbnail key`);
        continue;
      }
      const thumbnail = await store.get(job.thumbnail_key).catch(() => undefined);
      if (!thumbnail || thumbnail[0] !== 0xff || thumbnail[1] !== 0xd8)
        problems.push(`completed job ${job.id}: thumbnail missing or not a JPEG`);
    }
    for (const key of await store.list('videos/')) {
      const video = await store.get(key);
      videosProbed += 1;
      if (!probe(video)) problems.push(`video ${key} (${video.length} bytes) is not whole`);
    }
    for (const job of jobs.filter((j) => j.status === 'completed'))
      if (!(await store.exists(job.video_key!)))
        problems.push(`completed job ${job.id}: video ${job.video_key} missing`);

    // Rendered twice: a claim while an earlier claimant was alive and not finished with
    // the job, or two completions.
    const TAKEN_AWAY = 'render stopped: the job was taken away (cancelled or reaped)';
    const ENDS = new Set([
      'render completed',
      'render failed',
      TAKEN_AWAY,
      'render task ended without its final write',
    ]);
    const workerPids = new Map<number, Instance>();
    for (const worker of workers)
      for (const pid of worker.killedAt.keys()) workerPids.set(pid, worker);
    let duplicated = 0;
    let rerendered = 0;
    let overlapsStopped = 0;
    // A power loss undoes what its process logged after the copy: such a claim or
    // completion never happened as far as the disk knows.
    const undone = (e: JobEvent) => powerLosses.some((p) => e.pid === p.pid && e.time > p.copiedAt);
    for (const id of watched) {
      const mine = events
        .filter((e) => e.jobId === id && !undone(e))
        .sort((a, b) => a.time - b.time);
      const completions = mine.filter((e) => e.msg === 'render completed').length;
      const claims = mine.filter((e) => e.msg === 'job claimed');
      if (claims.length > 1) rerendered += 1;
      // A claim while the earlier claimant was alive and not done with the job: the reaper
      // gave the job back (no heartbeat for STUCK_JOB_SECONDS, e.g. while the database was
      // down). Harmless when the earlier one stops at its next write (the documented
      // design); a duplicate when it goes on to complete or fail the job itself.
      let overlap = false;
      for (let c = 1; c < claims.length; c += 1) {
        const earlier = claims[c - 1]!;
        const later = claims[c]!;
        const killed = workerPids.get(earlier.pid)?.killedAt.get(earlier.pid);
        const end = mine.find(
          (e) => e.pid === earlier.pid && ENDS.has(e.msg) && e.time >= earlier.time,
        );
        const endedBefore = end !== undefined && end.time <= later.time;
        const killedBefore = killed !== undefined && killed <= later.time;
        if (endedBefore || killedBefore) continue;
        if (end?.msg === TAKEN_AWAY) overlapsStopped += 1;
        else overlap = true;
      }
      if (completions > 1 || overlap) {
        duplicated += 1;
        problems.push(
          `job ${id} rendered twice (${claims.length} claims, ${completions} completions${overlap ? ', overlapping' : ''})`,
        );
      }
    }
    const unexpected = answers.filter(
      (a) => typeof a.status === 'number' && a.status >= 500 && a.status !== 503,
    );
    for (const a of unexpected) problems.push(`answered ${a.status}: ${a.detail ?? ''}`);
    // A refusal says what is unavailable and when to come back.
    for (const a of answers.filter((a) => a.status === 503 && (!a.detail || !a.retryAfter)))
      problems.push(`a 503 without detail or Retry-After: ${a.detail ?? '(no detail)'}`);
    // While the disk refuses writes nothing new is accepted: a 202 asked for after the
    // disk filled and answered before it came back stored a job on a disk that took none.
    for (const a of answers)
      if (a.status === 202 && diskFaults.some((d) => a.startedAt > d.from + 50 && a.endedAt < d.to))
        problems.push(`job ${a.jobId} answered 202 while the disk refused writes`);

    // The table.
    const byKind = new Map<string, number[]>();
    for (const f of faults) byKind.set(f.kind, [...(byKind.get(f.kind) ?? []), f.recoveryMs]);
    const byStatus = new Map<number | 'none', number>();
    for (const a of answers) byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
    const engineRecoveries = faults.filter((f) => !RESTARTS.has(f.kind)).map((f) => f.recoveryMs);
    console.log(
      `\nrender chaos, seed ${SEED}, engines ${argv.engines}, faults ${faults.length} of ${FAULTS}`,
    );
    console.log('| fault | count | accepting again p50 (ms) | max (ms) |');
    console.log('| --- | --- | --- | --- |');
    for (const [kind, times] of byKind)
      console.log(
        `| ${kind} | ${times.length} | ${quantile(times, 0.5)} | ${Math.max(...times)} |`,
      );
    console.log(
      `\nanswers: ${[...byStatus].map(([s, c]) => `${s === 'none' ? 'no answer' : s}: ${c}`).join(', ')}`,
    );
    console.log(
      `accepted ${accepted.length} (completed ${jobs.length - failed.length}, failed with a reason ${failed.length}); lost ${lost.length}; gone with a power loss's window ${lostToPowerLoss.length}; duplicated ${duplicated}; rendered again after a fault ${rerendered} (overlapping a live earlier claim that then stopped: ${overlapsStopped}); videos probed ${videosProbed}; problems ${problems.length}; service crashes ${crashes()}; moved off a taken port ${relocations()}`,
    );
    console.log(
      `503 with a job id (commit in doubt): ${inDoubt.length}, of them stored ${inDoubt.filter((id) => byId.has(id)).length} (each must finish as an accepted job)`,
    );
    console.log(
      `after an engine's (or the disk's) return, first 202: p50 ${quantile(engineRecoveries, 0.5)} ms, p99 ${quantile(engineRecoveries, 0.99)} ms`,
    );
    const reasons = new Map<string, number>();
    for (const job of failed) reasons.set(job.error!, (reasons.get(job.error!) ?? 0) + 1);
    for (const [reason, count] of reasons) console.log(`  failed ×${count}: ${reason}`);
    for (const line of problems.slice(0, 20)) console.log(`  ${line}`);
    const slow =
      RECOVERY_BOUND_MS > 0 ? engineRecoveries.filter((ms) => ms > RECOVERY_BOUND_MS).length : 0;
    if (problems.length > 0 || crashes() > 0 || slow > 0) {
      console.log(
        `FAILED (${slow} recoveries over ${RECOVERY_BOUND_MS} ms); service log: ${join(work, 'service.log')}`,
      );
      process.exitCode = 1;
    }
  } finally {
    stopLoad = true;
    for (const instance of instances) instance.process?.stop();
    for (const instance of instances) await kill(instance);
    await direct?.close().catch(() => undefined);
    await guard.stopAll();
    serviceLog.end();
    if (process.exitCode !== 1) rmSync(work, { recursive: true, force: true });
  }
}

try {
  await main();
} catch (error) {
  log(`the run failed before its checks: ${(error as Error).stack ?? String(error)}`);
  process.exitCode = 2;
  await guard.stopAll();
}
// The queue's client and the pools may hold the loop open.
process.exit(process.exitCode ?? 0);
