/**
 * A build process's DuckDB allocator, chosen by the size of the source: call
 * `configureBuildAllocator(sourceDir)` in a process that builds (`cli-entry.ts`, the
 * bench's build workers) before anything imports `@duckdb/node-api`.
 *
 * DuckDB allocates through its own jemalloc, which keeps freed pages for a decay time
 * before handing them back, outside `memory_limit`. A build frees and reallocates hundreds
 * of MB within that time (hash tables, sorts, spilled blocks), so what it holds grows with
 * the data and the machine's speed: the 1,000,000-order MERGE re-run peaked at 1,110–1,175
 * MB quiet with jemalloc's decay, 741 MB with both decays 0 (pages returned at once,
 * whatever the pace). But returning pages at once makes every reuse a page fault: on the
 * 2-core AMD EPYC of 28 Nov the 100,000-order build took twice the CPU (10.7–14.1 s against
 * 4.5–5.2 s, most of the difference system time) and twice the wall time. A small build's
 * peak stays far under 1 GiB with the decay (556–567 MB at 100,000 orders), so:
 * sources under `LARGE_SOURCE_BYTES` keep DuckDB's own settings, larger ones return freed
 * pages at once. (README, Benchmark, "The build's allocator, by size".)
 *
 * jemalloc reads `DUCKDB_JE_MALLOC_CONF` once, when `libduckdb.so` is loaded, so this
 * throws if the library is loaded already (the setting would silently not apply). A value
 * given in the environment is kept.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** jemalloc's settings for a large build: purge freed pages immediately, skip the MADV_FREE stage. */
export const LARGE_BUILD_MALLOC_CONF = 'dirty_decay_ms:0,muzzy_decay_ms:0';

/**
 * Source CSV bytes from which a build returns freed pages at once: 64 MiB, about 140,000
 * orders (100,000 are 45 MB, 1,000,000 are 450 MB). Below it jemalloc's decay holds at most
 * what a small build frees. Measured with the decay (28 Nov, loaded, so below the quiet
 * pace's peak): 100,000 orders 556–602 MB, 200,000 (94 MB of CSV) 793–871 MB, 300,000
 * (141 MB) 1,005–1,010 MB, at the goal; the earlier bound of 128 MiB (~270,000 orders) let
 * a source near it reach ~1 GiB (README, Benchmark, "The allocator's bound, measured").
 */
export const LARGE_SOURCE_BYTES = 64 * 2 ** 20;

/** Bytes of the CSV files in `sourceDir`; a folder that cannot be read counts as large. */
export function sourceBytes(sourceDir: string): number {
  try {
    return readdirSync(sourceDir)
      .filter((name) => name.endsWith('.csv'))
      .reduce((total, name) => total + statSync(join(sourceDir, name)).size, 0);
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** The `DUCKDB_JE_MALLOC_CONF` a build of `sourceDir` sets, or undefined: DuckDB's defaults. */
export function buildMallocConf(sourceDir: string): string | undefined {
  return sourceBytes(sourceDir) >= LARGE_SOURCE_BYTES ? LARGE_BUILD_MALLOC_CONF : undefined;
}

/** Sets the allocator for a build of `sourceDir`; call before `@duckdb/node-api` is imported. */
export function configureBuildAllocator(sourceDir: string): void {
  if (
    process.platform === 'linux' &&
    readFileSync('/proc/self/maps', 'utf8').includes('libduckdb')
  ) {
    throw new Error(
      'configureBuildAllocator must run before @duckdb/node-api is imported: libduckdb is loaded already, so its allocator settings would not apply',
    );
  }
  const conf = buildMallocConf(sourceDir);
  if (conf !== undefined) process.env.DUCKDB_JE_MALLOC_CONF ??= conf;
}
