/**
 * A full disk under the analytics service (issue 21 item 4): the real service
 * (`src/main.ts`) runs with pwrite/fsync failing with ENOSPC from its first instruction
 * (packages/testing's disk-fault preload), so its first build (DuckDB writing the
 * warehouse) fails. Reads are then 503 with a `detail` naming the disk and `Retry-After`,
 * never a 500, and `/health` says the warehouse is down and why. Once the disk is freed the
 * build is retried by itself and the reads are served. The second test: the `analytics
 * build` command on a full disk exits 1 with one line naming the disk (its copy step's
 * ENOSPC came out as an uncaught error with its stack: the 200-fault chaos run of 27 Nov).
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  diskFaultsSkipReason,
  setDiskFull,
  spawnUnderFiu,
  startServiceUnderFiu,
  until,
} from '@platform/testing';
import { runCli } from '../../src/cli.js';

const SERVICE_DIR = fileURLToPath(new URL('../..', import.meta.url));
const skip = diskFaultsSkipReason();

test(
  'a full disk: reads 503 naming it with Retry-After, /health says why, the build is retried by itself',
  { skip, timeout: 120_000 },
  async (t) => {
    // Full from the start: the preload's faults are on before the program's first write.
    const service = await startServiceUnderFiu(
      t,
      SERVICE_DIR,
      {
        ...(process.env as Record<string, string>),
        LOG_LEVEL: 'warn',
        ANALYTICS_SEED_ORDERS: '300',
        ANALYTICS_BUILD_RETRY_SECONDS: '1',
      },
      true,
    );
    const get = async (path: string) => {
      const response = await fetch(`${service.base}${path}`);
      return {
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        body: (await response.json()) as Record<string, unknown>,
      };
    };
    const diskDetail =
      /not built yet: the disk under DATA_DIR is full or failing; the build is retried every 1 s/;

    // The first build has failed once the detail names the disk.
    await until('a read names the full disk', 90_000, async () =>
      diskDetail.test(String((await get('/api/v1/sales/kpis')).body.detail)),
    );
    const read = await get('/api/v1/sales/kpis');
    assert.equal(read.status, 503);
    assert.equal(read.body.code, 'WAREHOUSE_NOT_BUILT');
    assert.equal(read.retryAfter, '5');
    const health = await get('/health');
    assert.equal(health.status, 503);
    const warehouse = (
      health.body.dependencies as Record<string, { status: string; error: string }>
    ).warehouse!;
    assert.equal(warehouse.status, 'down');
    assert.match(warehouse.error, diskDetail);

    setDiskFull(service.pid, false);
    const afterwards: number[] = [];
    await until('the reads are served after the disk is freed', 60_000, async () => {
      afterwards.push((await get('/api/v1/sales/kpis')).status);
      return afterwards.at(-1) === 200;
    });
    assert.deepEqual(
      afterwards.filter((status) => status !== 200 && status !== 503),
      [],
      'every read before the build was done is a 503',
    );
    assert.equal((await get('/health')).status, 200);
    assert.equal(
      service.child.exitCode,
      null,
      `the service is still running; stderr: ${service.stderr()}`,
    );
  },
);

test(
  '`analytics build` on a full disk exits 1 naming the disk, without a stack trace',
  { skip, timeout: 120_000 },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'analytics-cli-disk-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const quiet = { out: () => undefined, err: () => undefined };
    const source = join(dir, 'source');
    const env = { DATA_DIR: join(dir, 'data') };
    assert.equal(
      await runCli(['generate', '--out', source, '--orders', '200'], { ...quiet, env }),
      0,
    );
    assert.equal(await runCli(['build', '--source', source], { ...quiet, env }), 0);
    // Full from its first instruction: the build's first write is the copy of the
    // warehouse into its scratch folder (Node's copyFile, not DuckDB).
    const build = spawnUnderFiu(
      process.execPath,
      [
        fileURLToPath(new URL('../../bin/analytics.mjs', import.meta.url)),
        'build',
        '--source',
        source,
      ],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] },
      true,
    );
    let stderr = '';
    build.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
    const [code] = (await once(build, 'exit')) as [number | null];
    assert.equal(code, 1, stderr);
    assert.match(stderr, /^analytics: build failed: the disk under DATA_DIR is full or failing/);
    assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
  },
);
