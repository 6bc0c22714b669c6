/**
 * Run by `pglite-durable-commits.test.ts` under `fiu-run -x`: opens a PGlite folder
 * through core's driver (in this thread, or on a thread of its own), makes fdatasync fail with EIO (fiu-ctrl on itself), makes a few
 * calls, lets fdatasync work again and prints one JSON line with each call's outcome.
 * Not a test itself (the runner takes only `*.test.ts`).
 */
import { execFileSync } from 'node:child_process';
import { createSqlDatabase } from '../../src/index.js';

const fdatasyncFails = (fails: boolean) =>
  execFileSync('fiu-ctrl', [
    '-c',
    fails
      ? 'enable name=posix/io/sync/fdatasync,failinfo=5'
      : 'disable name=posix/io/sync/fdatasync',
    String(process.pid),
  ]);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const outcome = async (call: () => Promise<unknown>) => {
  try {
    await call();
    return { ok: true };
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    return { ok: false, code, message };
  }
};

// `thread` as the second argument: the driver on a thread of its own (PGLITE_THREAD).
const db = await createSqlDatabase({
  dataDir: process.argv[2]!,
  thread: process.argv[3] === 'thread',
});
fdatasyncFails(true);
const create = await outcome(() => db.query('CREATE TABLE jobs (id int PRIMARY KEY)'));
// The failed sync retired the instance; a new one is opened at most once a second, and
// opening syncs the WAL folder, which fails too: the call is refused as "reopening".
await pause(1100);
const whileFailing = await outcome(() => db.query('INSERT INTO jobs VALUES (1)'));
fdatasyncFails(false);
let afterwards = await outcome(() => db.query('INSERT INTO jobs VALUES (2)'));
for (let i = 0; i < 50 && !afterwards.ok; i++) {
  await pause(200);
  afterwards = await outcome(() => db.query('INSERT INTO jobs VALUES (2)'));
}
const { rows } = await db.query('SELECT id FROM jobs ORDER BY id');
process.stdout.write(`${JSON.stringify({ create, whileFailing, afterwards, rows })}\n`);
await db.close();
process.stderr.write('closed\n');
// The retired instances were dropped unclosed (as the driver does): do not wait for them.
process.exit(0);
