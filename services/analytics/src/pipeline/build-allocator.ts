/**
 * A build process's DuckDB allocator: freed memory goes back to the OS at once. Import it
 * first in a process that builds (`cli-entry.ts`, the bench's build workers), before
 * anything imports `@duckdb/node-api`.
 *
 * DuckDB allocates through its own jemalloc, which keeps freed pages for a decay time
 * (5 s dirty, then 5 s "muzzy", MADV_FREE pages that still count in RSS), outside
 * `memory_limit`. A build frees and reallocates hundreds of MB within that time (hash
 * tables, sorts, spilled blocks), so its peak RSS grew with the machine's speed: the
 * 1,000,000-order MERGE re-run peaked at 1,110 MB quiet and 822 MB at load 8 (the same
 * work at a tenth of the pace); under load with both decays ten times longer, 1,105 MB.
 * With both decays 0 it peaked at 742 MB, whatever the pace, for about 15–20 % more CPU
 * (the page faults of memory used again). `allocator_flush_threshold` does not do this:
 * DuckDB applies it only to a worker idle for 0.5 s, never during a busy build.
 * (README, Benchmark, "The MERGE re-run's memory".)
 *
 * jemalloc reads `DUCKDB_JE_MALLOC_CONF` once, when `libduckdb.so` is loaded, so this
 * throws if the library is loaded already (the setting would silently not apply). A value
 * given in the environment is kept.
 */
import { readFileSync } from 'node:fs';

/** jemalloc's settings for a build: purge freed pages immediately, skip the MADV_FREE stage. */
export const BUILD_MALLOC_CONF = 'dirty_decay_ms:0,muzzy_decay_ms:0';

if (process.platform === 'linux' && readFileSync('/proc/self/maps', 'utf8').includes('libduckdb')) {
  throw new Error(
    'build-allocator must be imported before @duckdb/node-api: libduckdb is loaded already, so its allocator settings would not apply',
  );
}
process.env.DUCKDB_JE_MALLOC_CONF ??= BUILD_MALLOC_CONF;
