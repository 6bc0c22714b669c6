/**
 * CPU of the intake a single POST (issue 11, item 6): the submission service and the
 * control plane on JetStream + PostgreSQL (SQL log + PGlite without NATS), no adapter,
 * and the clients in a child process, so this process's `process.cpuUsage()` is the
 * intake's own: validation, the read-model and outbox statements, the publish, fastify.
 * A figure a shared machine disturbs little (wall-clock rates here are not the goal's).
 *
 *   INTAKE_RECORDS=5000 INTAKE_CONCURRENCY=32 node --import tsx services/integration/bench/intake-cpu.ts
 *
 * Prints one JSON line: records, seconds, POSTs a second, CPU ms a POST (user, system), the
 * CPU ms a POST of the run's PostgreSQL backends and, given `INTAKE_NATS_PID`, nats-server's.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { SqlDatabase } from '@platform/core';
import { natsUrlForTests } from '@platform/testing';
import { startPlatform, type RunningPlatform } from '../src/platform.js';
import { openBenchEngines } from './bench-engines.js';

const RECORDS = Number(process.env.INTAKE_RECORDS ?? 5000);
/**
 * POSTs before the measure. 1,000 left V8 still compiling: in a 6,000-POST window after
 * them, `perf` found 38 % of the process's CPU on its compiler threads (TurboFan), which
 * `process.cpuUsage` counts, and the figure swung 0.52-0.77 ms a POST run to run; after
 * 12,000, 0.40 ms and compiles gone (28 Nov 2026).
 */
const WARM_UP = Number(process.env.INTAKE_WARM_UP ?? 8000);
const CONCURRENCY = Number(process.env.INTAKE_CONCURRENCY ?? 32);
/**
 * The nats-server's pid, to count its CPU a POST too: a server of the run's own (another
 * helper's streams on a shared one count as ours), e.g. `nats-server -js -p 14222` and
 * `NATS_URL=nats://127.0.0.1:14222`.
 */
const NATS_PID = process.env.INTAKE_NATS_PID ? Number(process.env.INTAKE_NATS_PID) : undefined;

/** The clients: node:http with kept-alive sockets, in their own process; prints the seconds taken. */
const CLIENT = `
const http = require('node:http');
const [url, records, concurrency, run] = process.argv.slice(1);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(concurrency) });
let next = 0;
const post = (i) => new Promise((resolve, reject) => {
  const text = JSON.stringify({ internId: 'I-' + run + '-' + i, firstName: 'Bench', lastName: 'Mark ' + i,
    email: 'bench' + i + '@example.org', college: 'Load College, Testshire', department: 'Performance', startDate: '2025-01-01' });
  const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } });
  req.on('error', reject);
  req.on('response', (res) => {
    const chunks = [];
    res.on('data', (c) => chunks.push(c));
    res.on('end', () => res.statusCode === 202 ? resolve() : reject(new Error(res.statusCode + ' ' + Buffer.concat(chunks))));
  });
  req.end(text);
});
const worker = async () => { while (next < Number(records)) await post(next++); };
const t0 = performance.now();
Promise.all(Array.from({ length: Number(concurrency) }, worker)).then(
  () => { process.stdout.write(String((performance.now() - t0) / 1000)); agent.destroy(); },
  (error) => { console.error(error); process.exit(1); });
`;

function runClients(url: string, records: number, run: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['-e', CLIENT, url, String(records), String(CONCURRENCY), run],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code) =>
      code === 0 ? resolve(Number(out)) : reject(new Error(`clients exited ${code}`)),
    );
  });
}

/**
 * CPU (ms) the PostgreSQL backends of this run's database have used, by pid: on 2 cores the
 * database's work competes with the intake's, so a statement made cheaper there counts.
 * Empty on PGlite (it runs in this process) or where /proc is not readable.
 */
async function backendCpu(db: SqlDatabase): Promise<Map<number, number>> {
  const cpu = new Map<number, number>();
  if (!db.supportsListenNotify) return cpu;
  const { rows } = await db.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = current_database()',
  );
  for (const { pid } of rows) {
    const ms = processCpu(pid);
    if (ms !== undefined) cpu.set(pid, ms);
  }
  return cpu;
}

/** CPU (ms, 10 ms ticks) a process has used, from /proc; undefined when it cannot be read (another machine, gone). */
function processCpu(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * (1000 / 100); // USER_HZ
  } catch {
    return undefined;
  }
}

/**
 * INTAKE_PG_STATS=1: the intake tables' row writes after the run (how many updates were
 * HOT, i.e. rewrote no index), and, where pg_stat_statements is loaded, the statements
 * by total time: where the database's share of a POST goes.
 */
async function printTableStats(db: SqlDatabase): Promise<void> {
  if (!db.supportsListenNotify) return;
  const { rows: tables } = await db.query(
    `SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del FROM pg_stat_user_tables
     WHERE relname IN ('submitted_records', 'intake_outbox') ORDER BY relname`,
  );
  for (const row of tables) process.stdout.write(`${JSON.stringify(row)}\n`);
  const statements = await db
    .query(
      `SELECT calls, round(total_exec_time::numeric, 1) AS ms, round(total_plan_time::numeric, 1) AS plan_ms, rows, shared_blks_hit, shared_blks_dirtied,
         wal_records, left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS query
       FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
       ORDER BY total_exec_time DESC LIMIT 8`,
    )
    .catch(() => ({ rows: [] }));
  for (const row of statements.rows) process.stdout.write(`${JSON.stringify(row)}\n`);
}

async function main(): Promise<void> {
  const natsUrl = await natsUrlForTests();
  const engines = await openBenchEngines({ name: 'integration-intake', natsUrl });
  const { db, logger, broker } = engines;
  let platform: RunningPlatform | undefined;
  try {
    platform = await startPlatform({
      env: {
        ...engines.config({ INTEGRATION_ROLES: 'submission,control-plane' }),
        PORT: 0,
        CONTROL_PLANE_PORT: 0,
      },
      logger,
      db,
      ...(broker ? { broker } : {}),
    });
    const url = `${platform.urls.submission}/contracts/interns/records`;
    const run = randomBytes(3).toString('hex');
    await runClients(url, WARM_UP, `${run}w`);
    const pgBefore = await backendCpu(db);
    const natsBefore = processCpu(NATS_PID);
    const measuredFrom = performance.now();
    const before = process.cpuUsage();
    const seconds = await runClients(url, RECORDS, run);
    const cpu = process.cpuUsage(before);
    const natsAfter = processCpu(NATS_PID);
    const natsMs =
      natsBefore === undefined || natsAfter === undefined ? undefined : natsAfter - natsBefore;
    let pgMs = 0;
    for (const [pid, ms] of await backendCpu(db)) pgMs += ms - (pgBefore.get(pid) ?? 0);
    process.stdout.write(
      `${JSON.stringify({
        driver: natsUrl ? 'jetstream' : 'sql-log',
        records: RECORDS,
        concurrency: CONCURRENCY,
        seconds: Number(seconds.toFixed(2)),
        postsPerSecond: Math.round(RECORDS / seconds),
        cpuMsPerPost: Number(((cpu.user + cpu.system) / 1000 / RECORDS).toFixed(3)),
        userMsPerPost: Number((cpu.user / 1000 / RECORDS).toFixed(3)),
        systemMsPerPost: Number((cpu.system / 1000 / RECORDS).toFixed(3)),
        // Backends of this run's database (10 ms ticks; those gone since are not counted).
        postgresCpuMsPerPost: Number((pgMs / RECORDS).toFixed(3)),
        ...(natsMs === undefined
          ? {}
          : { natsCpuMsPerPost: Number((natsMs / RECORDS).toFixed(3)) }),
        // The measured window in seconds since the process started (a --cpu-prof's clock).
        window: [
          Number((measuredFrom / 1000).toFixed(2)),
          Number((performance.now() / 1000).toFixed(2)),
        ],
      })}\n`,
    );
    if (process.env.INTAKE_PG_STATS === '1') await printTableStats(db);
  } finally {
    await platform?.close();
    await engines.close();
  }
}

await main();
