/**
 * CPU and wall time per PGlite commit through core's driver (issue 21: the WAL sync).
 *
 *   node --import tsx packages/core/bench/pglite-commit.bench.ts [driver-module] [commits]
 *
 * `driver-module` is the path of a `pglite-database.ts` (default: this tree's), so the
 * driver of another checkout (the code before the sync) can be measured by the same
 * script: run the two alternately, several times, and compare CPU (the machine is
 * shared; wall time is the quiet bench's). Prints one JSON line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SqlDatabase } from '../src/index.js';

const modulePath = resolve(
  process.argv[2] ?? new URL('../src/sql/pglite/pglite-database.ts', import.meta.url).pathname,
);
const commits = Number(process.argv[3] ?? 2000);
const { createPgliteDatabase } = (await import(pathToFileURL(modulePath).href)) as {
  createPgliteDatabase(options: { dataDir: string }): Promise<SqlDatabase>;
};

const dir = mkdtempSync(join(tmpdir(), 'pglite-commit-bench-'));
const db = await createPgliteDatabase({ dataDir: dir });
await db.query('CREATE TABLE jobs (id int PRIMARY KEY, payload text NOT NULL)');

/** Per call: CPU (user + system) and wall, in ms. */
const measure = async (count: number, call: (i: number) => Promise<unknown>) => {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  await call(count);
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  const used = process.cpuUsage(cpu);
  return {
    cpuMs: +((used.user + used.system) / 1000 / count).toFixed(4),
    wallMs: +(wall / count).toFixed(4),
  };
};

let next = 0;
const insert = () => db.query('INSERT INTO jobs VALUES ($1, $2)', [next++, 'x'.repeat(200)]);
await measure(200, async (n) => {
  for (let i = 0; i < n; i++) await insert();
}); // warm-up
const oneByOne = await measure(commits, async (n) => {
  for (let i = 0; i < n; i++) await insert();
});
// Eight callers at once (as concurrent requests would): syncs can be shared.
const eightAtOnce = await measure(commits, async (n) => {
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let i = 0; i < n / 8; i++) await insert();
    }),
  );
});
const readOnly = await measure(commits, async (n) => {
  for (let i = 0; i < n; i++) await db.query('SELECT payload FROM jobs WHERE id = $1', [i]);
});
await db.close();
rmSync(dir, { recursive: true, force: true });
process.stdout.write(
  `${JSON.stringify({ driver: modulePath, commits, oneByOne, eightAtOnce, readOnly })}\n`,
);
