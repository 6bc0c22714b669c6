/**
 * A build of a large source hands DuckDB's freed memory back to the OS at once
 * (`build-allocator.ts`), so its peak RSS does not grow with the machine's speed; a small
 * one keeps DuckDB's own allocator settings (returning pages at once doubled the
 * 100,000-order build's CPU). Each case is a child process (jemalloc reads its settings
 * when libduckdb loads): DuckDB allocates and frees about 90 MB, and the resident set
 * right after is compared with the one before.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { LARGE_SOURCE_BYTES, buildMallocConf } from '../../src/pipeline/build-allocator.js';

const run = promisify(execFile);
const probe = fileURLToPath(new URL('../helpers/allocator-probe.ts', import.meta.url));
/** Memory DuckDB freed and the process still holds, MB: what the peak of a build carries. */
const HELD_MB = 40;

/** MB DuckDB freed and the probe still holds, after `configureBuildAllocator(sourceDir)`. */
async function heldAfterFree(sourceDir: string): Promise<number> {
  const env = { ...process.env };
  delete env.DUCKDB_JE_MALLOC_CONF;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', probe, 'build', sourceDir], {
    env,
  });
  const { before, after } = JSON.parse(stdout) as { before: number; after: number };
  return after - before;
}

describe(
  'the build allocator',
  { skip: process.platform !== 'linux' && 'jemalloc: Linux only' },
  () => {
    let root: string;
    let small: string;
    let large: string;
    before(async () => {
      root = await mkdtemp(join(tmpdir(), 'analytics-allocator-'));
      small = join(root, 'small');
      large = join(root, 'large');
      await run('mkdir', [small, large]);
      await writeFile(join(small, 'olist_orders_dataset.csv'), 'order_id\n1\n');
      // A sparse file: its size is the source's, no disk written.
      await writeFile(join(large, 'olist_orders_dataset.csv'), '');
      await truncate(join(large, 'olist_orders_dataset.csv'), LARGE_SOURCE_BYTES);
    });
    after(() => rm(root, { recursive: true, force: true }));

    it('a large source returns what DuckDB frees at once; a small one keeps the decay', async () => {
      const [largeHeld, smallHeld] = await Promise.all([
        heldAfterFree(large),
        heldAfterFree(small),
      ]);
      assert.ok(largeHeld < HELD_MB, `a large build's process still holds ${largeHeld} MB`);
      // The probe measures something, and a small build keeps DuckDB's faster default.
      assert.ok(smallHeld >= HELD_MB, `a small build's allocator held only ${smallHeld} MB`);
    });

    it('chooses by the CSV files’ bytes; an unreadable folder counts as large', async () => {
      assert.equal(buildMallocConf(small), undefined);
      // 200,000 orders (94 MB of CSV) peaked at 793–871 MB with the decay: already large.
      const mid = join(root, 'mid');
      await run('mkdir', [mid]);
      await writeFile(join(mid, 'olist_orders_dataset.csv'), '');
      await truncate(join(mid, 'olist_orders_dataset.csv'), 94_000_000);
      assert.equal(buildMallocConf(mid), 'dirty_decay_ms:0,muzzy_decay_ms:0');
      // 100,000 orders (45 MB) keep DuckDB's faster default.
      const hundredK = join(root, 'hundred-k');
      await run('mkdir', [hundredK]);
      await writeFile(join(hundredK, 'olist_orders_dataset.csv'), '');
      await truncate(join(hundredK, 'olist_orders_dataset.csv'), 45_000_000);
      assert.equal(buildMallocConf(hundredK), undefined);
      assert.equal(buildMallocConf(large), 'dirty_decay_ms:0,muzzy_decay_ms:0');
      assert.equal(buildMallocConf(join(root, 'missing')), 'dirty_decay_ms:0,muzzy_decay_ms:0');
    });

    it('refuses to run after DuckDB is loaded (its settings would not apply)', async () => {
      await import('../../src/warehouse/duckdb-session.js');
      const { configureBuildAllocator } = await import('../../src/pipeline/build-allocator.js');
      assert.throws(() => configureBuildAllocator(small), /must run before @duckdb\/node-api/);
    });
  },
);
