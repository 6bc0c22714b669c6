/**
 * The reconciler's span query, old against new (issue 21; README round "the intake's
 * outbox made HOT", item (d)): on a fresh PostgreSQL database (or PGlite with
 * `SPANS_ENGINE=pglite`), N sent events in the window over 8 partitions, each sent a
 * minute ago with a ~600-byte envelope; times the old statement (the whole window summed)
 * and a `SentSpanCache` call after its first, `SPANS_CALLS` calls each, alternately.
 *
 *   SPANS_EVENTS=13000,100000 node --import tsx services/integration/bench/outbox-spans.ts
 */
import { createSqlDatabase, type SqlDatabase } from '@platform/core';
import { createTestDatabase } from '@platform/testing';
import { migrateIntegration } from '../src/migrations.js';
import { SentSpanCache } from '../src/submission/sent-span-cache.js';

/** The reconciler's statement before this change (main c4999bd): every event of the window. */
const OLD_SPANS = `SELECT topic, partition, min("offset") AS from_offset, max("offset") AS to_offset,
   count(*) AS events, count(DISTINCT "offset") AS offsets
 FROM intake_outbox
 WHERE window_at > now() - make_interval(secs => $1::double precision / 1000)
   AND sent_at IS NOT NULL AND partition IS NOT NULL AND "offset" IS NOT NULL
 GROUP BY topic, partition`;

const WINDOW_MS = 300_000;
const counts = (process.env.SPANS_EVENTS ?? '13000,100000').split(',').map(Number);
const calls = Number(process.env.SPANS_CALLS ?? 20);
const pglite = process.env.SPANS_ENGINE === 'pglite';

async function fill(db: SqlDatabase, events: number): Promise<void> {
  await db.query('TRUNCATE intake_outbox, intake_outbox_unsent');
  await db.query(
    `INSERT INTO intake_outbox (record_id, contract_id, natural_key, kind, topic, envelope,
       revision, owner, sent_at, window_at, partition, "offset")
     SELECT gen_random_uuid(), 'bench', 'k' || i, 'create', 'bench.created',
       jsonb_build_object('pad', repeat('x', 600)), 1, 'bench',
       now() - interval '1 minute', now() - interval '1 minute' + i * interval '1 microsecond',
       i % 8, i / 8
     FROM generate_series(0, $1::integer - 1) AS i`,
    [events],
  );
  await db.query('VACUUM ANALYZE intake_outbox');
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const testDb = pglite ? undefined : await createTestDatabase('spans_bench');
const db = await createSqlDatabase({ url: testDb?.url, dataDir: 'memory://', poolSize: 2 });
try {
  await migrateIntegration(db);
  for (const events of counts) {
    await fill(db, events);
    const cache = new SentSpanCache(WINDOW_MS);
    const first = await timed(() => cache.spans(db));
    const old: number[] = [];
    const now: number[] = [];
    for (let i = 0; i < calls; i++) {
      old.push(await timed(() => db.query(OLD_SPANS, [WINDOW_MS])));
      now.push(await timed(() => cache.spans(db)));
    }
    console.log(
      `${pglite ? 'pglite' : 'postgres'} ${events} events: old ${median(old).toFixed(2)} ms ` +
        `(min ${Math.min(...old).toFixed(2)}), new ${median(now).toFixed(2)} ms ` +
        `(min ${Math.min(...now).toFixed(2)}), new's first call ${first.toFixed(2)} ms; medians of ${calls}`,
    );
  }
} finally {
  await db.close();
  await testDb?.drop();
}
