/**
 * The relational target's batch write alone: CPU per record and SQL round trips per batch
 * (statements sent, BEGIN and COMMIT included) for batches of interns events — creates,
 * then updates and deletes of the same keys, with revisions — on PGlite, or on PostgreSQL
 * when `BENCH_DATABASE_URL` is set. CPU is this process's (the PostgreSQL server's is not
 * counted), so compare runs of old and new code alternately rather than wall-clock.
 *
 *   node --import tsx services/integration/bench/relational-batch.ts
 *   BENCH_BATCHES=100 BENCH_BATCH_SIZE=200 BENCH_DATABASE_URL=postgres://127.0.0.1:5432/test …
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createSqlDatabase,
  loadMigrations,
  runMigrations,
  type SqlDatabase,
  type SqlExecutor,
} from '@platform/core';
import { RELATIONAL_MIGRATIONS_DIR } from '../src/adapters/relational/build-relational-adapter.js';
import { createRelationalTarget } from '../src/adapters/relational/relational-target.js';
import type { TargetEvent } from '../src/adapters/runtime/adapter-target.js';
import type { AttachmentView } from '../src/adapters/runtime/attachment.js';
import { INTERNS_CONTRACT } from '../src/contracts/interns-contract.js';

const batches = Number(process.env.BENCH_BATCHES ?? 60);
const size = Number(process.env.BENCH_BATCH_SIZE ?? 200);
const url = process.env.BENCH_DATABASE_URL;

/** Counts every statement sent, transactions' included. */
function counted(db: SqlDatabase): { db: SqlDatabase; statements: () => number } {
  let statements = 0;
  const wrap = <T extends SqlExecutor>(executor: T): T =>
    new Proxy(executor, {
      get(real, property) {
        if (property === 'query')
          return (...args: Parameters<SqlExecutor['query']>) => {
            statements += 1;
            return real.query(...args);
          };
        const value: unknown = Reflect.get(real, property, real);
        return typeof value === 'function' ? value.bind(real) : value;
      },
    });
  const proxied = new Proxy(db, {
    get(real, property) {
      if (property === 'transaction')
        return <R>(fn: (tx: SqlExecutor) => Promise<R>) => {
          statements += 2; // BEGIN and COMMIT
          return real.transaction((tx) => fn(wrap(tx)));
        };
      if (property === 'query') return wrap(real).query;
      const value: unknown = Reflect.get(real, property, real);
      return typeof value === 'function' ? value.bind(real) : value;
    },
  });
  return { db: proxied, statements: () => statements };
}

const dir = await mkdtemp(join(tmpdir(), 'relational-batch-bench-'));
const raw = await createSqlDatabase({ url, dataDir: join(dir, 'pglite') });
await runMigrations(
  raw,
  'integration-relational-adapter',
  loadMigrations(RELATIONAL_MIGRATIONS_DIR),
);
const { db, statements } = counted(raw);
const target = createRelationalTarget(db);
await target.start?.();
const attachment: AttachmentView = {
  attachmentId: randomUUID(),
  contractId: INTERNS_CONTRACT.contractId,
  adapterType: 'relational',
  config: { mode: 'generic', table: 'records' },
  enabled: true,
  contract: INTERNS_CONTRACT,
};
const mapping = await target.resolveMapping(attachment);
const types = ['intern.created', 'intern.updated', 'intern.deleted'] as const;
let offset = 0;
const batchOf = (round: number): TargetEvent[] =>
  Array.from({ length: size }, (_, i) => {
    const key = `bench-${Math.floor(round / 3)}-${i}`;
    const recordType = types[round % 3]!;
    return {
      envelope: {
        recordId: randomUUID(),
        contractId: 'interns',
        recordType,
        schemaVersion: 1,
        naturalKey: key,
        occurredAt: new Date(Date.UTC(2026, 0, 1) + round * 1000).toISOString(),
        traceId: randomUUID(),
        payload: {
          internId: key,
          firstName: 'Ada',
          lastName: 'Lovelace',
          email: `${key}@example.org`,
          college: 'Analytical Engine College',
          department: 'Mathematics',
          mentor: 'Babbage',
          startDate: '2026-01-05',
          status: round % 3 === 1 ? 'LEFT' : 'ACTIVE',
        },
        legacyFlat: false,
        revision: (round % 3) + 1,
      },
      lifecycle: INTERNS_CONTRACT.lifecycle[recordType]!,
      attachment,
      position: { consumerGroup: 'bench', topic: 't', partition: 0, offset: offset++ },
    };
  });
// Warm-up (not measured): JIT and the engine's plan caches.
for (let round = 0; round < 3; round += 1) await target.writeBatch!(mapping, batchOf(1000 + round));
const before = { cpu: process.cpuUsage(), statements: statements(), at: performance.now() };
for (let round = 0; round < batches; round += 1) await target.writeBatch!(mapping, batchOf(round));
const cpu = process.cpuUsage(before.cpu);
const records = batches * size;
console.log(
  JSON.stringify({
    engine: raw.engine,
    batches,
    batchSize: size,
    cpuMsPerRecord: Number(((cpu.user + cpu.system) / 1000 / records).toFixed(4)),
    statementsPerBatch: (statements() - before.statements) / batches,
    wallMs: Math.round(performance.now() - before.at),
  }),
);
await target.close?.();
await raw.close();
await rm(dir, { recursive: true, force: true });
