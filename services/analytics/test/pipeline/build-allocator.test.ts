/**
 * A build process hands DuckDB's freed memory back to the OS at once (`build-allocator.ts`),
 * so a build's peak RSS does not grow with the machine's speed. Each case is a child
 * process (jemalloc reads its settings when libduckdb loads): DuckDB allocates and frees
 * about 90 MB, and the resident set right after is compared with the one before.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';

const run = promisify(execFile);
const probe = fileURLToPath(new URL('../helpers/allocator-probe.ts', import.meta.url));
/** Memory DuckDB freed and the process still holds, MB: what the peak of a build carries. */
const HELD_MB = 40;

async function heldAfterFree(mode: 'build' | 'plain'): Promise<number> {
  const env = { ...process.env };
  delete env.DUCKDB_JE_MALLOC_CONF;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', probe, mode], { env });
  const { before, after } = JSON.parse(stdout) as { before: number; after: number };
  return after - before;
}

describe(
  'the build allocator',
  { skip: process.platform !== 'linux' && 'jemalloc: Linux only' },
  () => {
    it('returns what DuckDB frees at once, where the default keeps it', async () => {
      const [build, plain] = await Promise.all([heldAfterFree('build'), heldAfterFree('plain')]);
      assert.ok(build < HELD_MB, `build process still holds ${build} MB`);
      // The probe measures something: DuckDB's own settings keep the freed memory.
      assert.ok(plain >= HELD_MB, `default allocator held only ${plain} MB`);
    });

    it('refuses to be imported after DuckDB is loaded (its settings would not apply)', async () => {
      await import('../../src/warehouse/duckdb-session.js');
      await assert.rejects(
        import('../../src/pipeline/build-allocator.js'),
        /must be imported before @duckdb\/node-api/,
      );
    });
  },
);
