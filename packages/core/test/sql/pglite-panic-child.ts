/**
 * Run by `pglite-panic.test.ts` with packages/testing's disk-fault library preloaded:
 * opens a PGlite folder through core's driver and answers each line of its input with one
 * JSON line: `commit N` inserts N in a transaction (PGlite's `transaction`: BEGIN, the
 * insert, COMMIT by `exec`), `rows` lists the ids. Not a test itself (the runner takes only
 * `*.test.ts`).
 */
import { createInterface } from 'node:readline';
import { createSqlDatabase } from '../../src/index.js';

const db = await createSqlDatabase({ dataDir: process.argv[2]! });
await db.query('CREATE TABLE jobs (id int PRIMARY KEY)');
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  const [command, id] = line.split(' ');
  let answer: unknown;
  try {
    if (command === 'commit')
      await db.transaction((tx) => tx.query('INSERT INTO jobs VALUES ($1)', [Number(id)]));
    const rows = command === 'rows' ? (await db.query('SELECT id FROM jobs ORDER BY id')).rows : [];
    answer = { ok: true, rows };
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    answer = { ok: false, code, message };
  }
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}
