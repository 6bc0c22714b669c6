/**
 * The multi-machine form, as processes of `src/main.ts` on one machine: two API-only
 * instances (`RUN_WORKER=false`: HTTP, dispatcher, reaper) and two worker-only instances
 * (`RUN_DISPATCHER=false`, `RUN_REAPER=false`) sharing one PostgreSQL database, one Redis
 * (under a prefix of their own) and one S3 bucket. One API instance and the worker
 * rendering a job are SIGKILLed mid-run; every job still completes, each exactly once
 * (the killed worker's job once more, given back by the reaper).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { bundleEntry, freePort, madeOsuFixturesDir } from '@platform/testing';
import { readFixture } from '../helpers/fixtures.js';
import { engineSets, multipart, openTestEngines, type TestEngines } from '../helpers/harness.js';

const SERVICE_DIR = fileURLToPath(new URL('../..', import.meta.url));
// Bundled once (packages/testing's bundled-entry): four instances under tsx cost about a
// second of CPU each for the loader alone.
const MAIN = await bundleEntry(SERVICE_DIR, join(SERVICE_DIR, 'src', 'main.ts'));
const real = (await engineSets()).find((e) => e.kind === 'real')!;
/** Reaper settings of the API instances: a dead worker's job is noticed within seconds. */
const STUCK_JOB_SECONDS = 12;

interface Instance {
  name: string;
  base: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  stderr: () => string;
  log: () => string;
}

interface Job {
  job_id: string;
  status: string;
  error: string | null;
}

describe(
  'scale out: two API-only and two worker-only instances (PostgreSQL + Redis + S3)',
  {
    skip: real.skip,
  },
  () => {
    let engines: TestEngines;
    let dataDir: string;
    const instances: Instance[] = [];

    async function start(name: string, role: Record<string, string>): Promise<Instance> {
      const port = await freePort();
      const s3 = engines.s3!;
      const child = spawn(process.execPath, [MAIN], {
        env: {
          ...process.env,
          PORT: String(port),
          HOST: '127.0.0.1',
          LOG_LEVEL: 'warn',
          DATA_DIR: dataDir,
          DATABASE_URL: engines.databaseUrl!,
          REDIS_URL: engines.redisUrl!,
          REDIS_KEY_PREFIX: engines.keyPrefix.replace(/:$/, ''),
          S3_ENDPOINT: s3.endpoint,
          S3_BUCKET: s3.bucket,
          S3_REGION: 'us-east-1',
          S3_ACCESS_KEY_ID: s3.accessKeyId,
          S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
          SIGNING_SECRET: 'scale-out-test-signing-secret',
          BEATMAPS_DIR: madeOsuFixturesDir(),
          RENDER_WIDTH: '640',
          RENDER_HEIGHT: '360',
          STUCK_JOB_SECONDS: String(STUCK_JOB_SECONDS),
          // every submission is the same replay: each must be rendered, not reused
          REUSE_RENDERS: 'false',
          ...role,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      // Its log (pino, stdout, warn and above) is kept to say what a stuck run was doing.
      let log = '';
      let stderr = '';
      child.stdout!.on('data', (c: Buffer) => (log = (log + c.toString()).slice(-4000)));
      child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      const instance = {
        name,
        base: `http://127.0.0.1:${port}`,
        child,
        exited,
        stderr: () => stderr,
        log: () => log,
      };
      instances.push(instance);
      return instance;
    }

    async function healthy(instance: Instance): Promise<void> {
      const deadline = Date.now() + 90_000;
      while (
        !(await fetch(`${instance.base}/health`).then(
          (r) => r.ok,
          () => false,
        ))
      ) {
        assert.ok(
          Date.now() < deadline && instance.child.exitCode === null,
          `${instance.name} did not start: ${instance.stderr()}`,
        );
        await new Promise((r) => setTimeout(r, 200));
      }
    }

    const kill = (instance: Instance) => {
      instance.child.kill('SIGKILL');
      return instance.exited;
    };

    let address = 0;
    async function submitTo(instance: Instance): Promise<string> {
      address += 1;
      const { body, contentType } = multipart({}, [
        { field: 'replay', filename: 'scale.osr', data: readFixture('perfect.osr') },
      ]);
      const res = await fetch(`${instance.base}/v1/render`, {
        method: 'POST',
        body,
        // distinct clients (a loopback peer is a trusted proxy), so the per-address limits do not bite
        headers: { 'content-type': contentType, 'edge-connecting-ip': `10.77.${address}.1` },
      });
      assert.equal(res.status, 202, await res.clone().text());
      return ((await res.json()) as Job).job_id;
    }

    before(async () => {
      engines = await openTestEngines('real', { maxQueued: 1000, maxRendering: 1000 });
      dataDir = await mkdtemp(join(tmpdir(), 'render-scale-out-'));
    });
    after(async () => {
      for (const instance of instances) {
        instance.child.kill('SIGKILL');
        await instance.exited;
      }
      await engines?.close();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    test('one API instance and one rendering worker SIGKILLed mid-run: no job lost, none rendered twice', async () => {
      const api = [
        await start('api-1', { RUN_WORKER: 'false' }),
        await start('api-2', { RUN_WORKER: 'false' }),
      ];
      const workers = [
        await start('worker-1', { RUN_DISPATCHER: 'false', RUN_REAPER: 'false' }),
        await start('worker-2', { RUN_DISPATCHER: 'false', RUN_REAPER: 'false' }),
      ];
      await Promise.all([...api, ...workers].map(healthy));

      const ids: string[] = [];
      for (let i = 0; i < 4; i += 1) ids.push(await submitTo(api[i % 2]!));

      // The first job a worker starts: its worker id is `<host>-<pid>`.
      let victim: { id: string; worker: Instance } | undefined;
      const deadline = Date.now() + 90_000;
      while (!victim) {
        const { rows } = await engines.ctx.db.query<{ id: string; worker_id: string }>(
          `SELECT id::text AS id, worker_id FROM render_jobs
          WHERE status IN ('downloading', 'rendering') AND worker_id IS NOT NULL LIMIT 1`,
        );
        const row = rows[0];
        const worker = row && workers.find((w) => row.worker_id === `${hostname()}-${w.child.pid}`);
        if (row && worker) victim = { id: row.id, worker };
        else {
          assert.ok(Date.now() < deadline, 'no worker started a job');
          await new Promise((r) => setTimeout(r, 20));
        }
      }
      await Promise.all([kill(victim.worker), kill(api[0]!)]);
      const { rows: killed } = await engines.ctx.db.query<{ status: string }>(
        'SELECT status FROM render_jobs WHERE id = $1',
        [victim.id],
      );
      assert.ok(
        ['downloading', 'rendering'].includes(killed[0]!.status),
        `killed mid-run (the job was ${killed[0]!.status})`,
      );
      const survivor = api[1]!;
      for (let i = 0; i < 2; i += 1) ids.push(await submitTo(survivor));

      // Bounded by the reaper's window plus six small renders on the one worker left.
      const finishBy = Date.now() + STUCK_JOB_SECONDS * 1000 + 180_000;
      const final = new Map<string, Job>();
      while (final.size < ids.length) {
        for (const id of ids.filter((i) => !final.has(i))) {
          const job = (await (await fetch(`${survivor.base}/v1/jobs/${id}`)).json()) as Job;
          if (job.status === 'completed' || job.status === 'failed') final.set(id, job);
        }
        if (Date.now() >= finishBy) {
          const { rows: stuck } = await engines.ctx.db.query<{ id: string; status: string }>(
            `SELECT id::text AS id, status, worker_id, progress FROM render_jobs
              WHERE id = ANY($1::uuid[])`,
            [ids.filter((i) => !final.has(i))],
          );
          const logs = instances.map((i) => `--- ${i.name}:\n${i.log()}${i.stderr()}`).join('\n');
          assert.fail(`jobs still running: ${JSON.stringify(stuck)}\n${logs}`);
        }
        await new Promise((r) => setTimeout(r, 250));
      }
      for (const job of final.values()) assert.equal(job.status, 'completed', job.error ?? '');

      // Exactly once: one outbox event and one worker claim per job, the killed job's
      // second dispatch being the reaper's; every video is in the shared bucket.
      const { rows } = await engines.ctx.db.query<{
        id: string;
        events: number;
        dispatches: number;
      }>(
        `SELECT j.id::text AS id, j.dispatch_count AS dispatches,
              (SELECT count(*)::int FROM render_outbox o WHERE o.job_id = j.id) AS events
         FROM render_jobs j`,
      );
      assert.equal(rows.length, ids.length);
      for (const row of rows) {
        const expected: number = row.id === victim.id ? 2 : 1;
        assert.equal(Number(row.events), expected, `outbox events of ${row.id}`);
        assert.equal(Number(row.dispatches), expected, `dispatches of ${row.id}`);
        const log = (await engines.ctx.store.get(`logs/${row.id}.log`)).toString();
        assert.equal(log.match(/ taken by /g)?.length, 1, `rendered once: ${row.id}`);
        const video = await engines.ctx.store.get(`videos/${row.id}.mp4`);
        assert.equal(video.subarray(4, 8).toString('latin1'), 'ftyp');
      }
      // The surviving worker took the killed one's job.
      const log = (await engines.ctx.store.get(`logs/${victim.id}.log`)).toString();
      const other = workers.find((w) => w !== victim!.worker)!;
      assert.match(log, new RegExp(` taken by ${hostname()}-${other.child.pid}`));
    });
  },
);
