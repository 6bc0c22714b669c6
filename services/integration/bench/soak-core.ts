/**
 * Soak of the broker and the three adapters: pushes `records` events (per key one create
 * then updates) through one broker driver while the relational adapter is paused and
 * resumed and the csv adapter is stopped and started again, mid-drain (`injectFaults`),
 * then checks that every target holds every event exactly once and applied per key in
 * order:
 * - relational: one audit row per event, updates of a key audited in publish order, the
 *   row holds the last update;
 * - csv: one journal entry per event, one line per key holding the last update;
 * - webhook: one delivery per event, updates of a key delivered in publish order.
 * Used by `bench/soak.ts` (100,000 records) and by a small variant in the tests.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { join } from 'node:path';
import { createSqlDatabase, type Logger, type SqlDatabase } from '@platform/core';
import { createTestDatabase, postgresUrlForTests, type TestDatabase } from '@platform/testing';
import { buildCsvAdapter } from '../src/adapters/csv/build-csv-adapter.js';
import { stateDirFor } from '../src/adapters/csv/csv-config.js';
import { parseCsv } from '@platform/core';
import { buildRelationalAdapter } from '../src/adapters/relational/build-relational-adapter.js';
import type { Adapter } from '../src/adapters/runtime/build-adapter.js';
import { buildWebhookAdapter } from '../src/adapters/webhook/build-webhook-adapter.js';
import { startHarness } from '../test/helpers/adapter-harness.js';
import { BROKER_DRIVERS, SQL_LOG_PGLITE_THREAD, waitFor } from '../test/helpers/broker-drivers.js';
import { envelope, internPayload, INTERNS } from '../test/helpers/records.js';
import { startWebhookReceiver } from '../test/helpers/webhook-receiver.js';

export interface SoakOptions {
  /** `sql-log-pglite-thread`: the SQL log on a PGlite folder on a thread of its own. */
  driver: 'sql-log-pglite' | 'sql-log-pglite-thread' | 'sql-log-postgres' | 'jetstream';
  records: number;
  /** Events per key (1 create + n-1 updates). @defaultValue 5 */
  eventsPerKey?: number;
  /** Relational target on PostgreSQL when available (else the broker's PGlite). @defaultValue true for jetstream */
  postgresTarget?: boolean;
  /** fsync CSV writes. @defaultValue true */
  csvDurable?: boolean;
  timeoutMs?: number;
  log?: (line: string) => void;
  /** The adapters' logger (silent when absent); the bench passes a warn-level one so retries show. */
  logger?: Logger;
}

export interface SoakResult {
  driver: string;
  records: number;
  keys: number;
  publishSeconds: number;
  /** From the first publish until every target holds every event. */
  totalSeconds: number;
  recordsPerSecond: number;
  perAdapterSeconds: Record<string, number>;
  /**
   * CPU time of this process (publisher, broker client, the three adapters, the webhook
   * receiver) per event, from the first publish until every target held every event:
   * the figure a shared machine disturbs least.
   */
  cpuMsPerEvent: number;
  problems: string[];
}

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const log = options.log ?? (() => undefined);
  const perKey = options.eventsPerKey ?? 5;
  const keys = Math.max(1, Math.floor(options.records / perKey));
  const total = keys * perKey;
  const driver = [...BROKER_DRIVERS, SQL_LOG_PGLITE_THREAD].find((d) => d.name === options.driver)!;
  const harness = await startHarness(driver);
  const dir = await mkdtemp(join(tmpdir(), 'soak-'));
  const receiver = await startWebhookReceiver();
  let testDb: TestDatabase | undefined;
  let db: SqlDatabase = harness.db;
  const usePostgres =
    (options.postgresTarget ?? options.driver === 'jetstream') && (await postgresUrlForTests());
  if (usePostgres) {
    testDb = await createTestDatabase('soak');
    db = await createSqlDatabase({ url: testDb.url, dataDir: 'unused', poolSize: 4 });
  }
  const relationalAttachment = harness.controlPlane.attach(INTERNS, 'relational', {
    mode: 'shaped',
    table: 'interns',
    tombstone: 'delete',
  });
  const csvAttachment = harness.controlPlane.attach(INTERNS, 'csv', { path: 'soak/interns.csv' });
  harness.controlPlane.attach(INTERNS, 'webhook', {
    url: `${receiver.url}/soak`,
    authType: 'bearer',
    token: 'soak',
  });
  const deps = () =>
    harness.adapterDeps({
      refreshIntervalMs: 1000,
      ...(options.logger ? { logger: options.logger } : {}),
    });
  const csvDeps = () => ({
    ...deps(),
    baseDir: join(dir, 'csv'),
    durable: options.csvDurable ?? true,
  });
  const relational = await buildRelationalAdapter({ ...deps(), db });
  let csv: Adapter = await buildCsvAdapter(csvDeps());
  const webhook = await buildWebhookAdapter({
    ...deps(),
    stateDir: join(dir, 'webhook'),
    allowedOutbound: ['127.0.0.1'],
  });
  const adapters = () => [relational, csv, webhook];
  for (const adapter of adapters()) await adapter.start();

  const problems: string[] = [];
  const started = Date.now();
  const cpuAtStart = process.cpuUsage();
  const elapsed = () => ((Date.now() - started) / 1000).toFixed(1);
  const done: Record<string, number> = {};
  let progress: NodeJS.Timeout | undefined;
  try {
    const ids = Array.from({ length: keys }, (_, i) => `soak-${i}`);
    const at = Date.parse('2026-06-01T00:00:00.000Z');
    let published = 0;
    const publishing = (async () => {
      for (let round = 0; round < perKey; round += 1) {
        for (let i = 0; i < ids.length; i += 64) {
          await Promise.all(
            ids.slice(i, i + 64).map((id, j) => {
              const e = envelope(
                'interns',
                round === 0 ? 'intern.created' : 'intern.updated',
                id,
                internPayload(id, { mentor: `seq-${round}` }),
              );
              e.occurredAt = new Date(at + round * 1_000_000 + i + j).toISOString();
              return harness.publish(e);
            }),
          );
          // PGlite answers in microtasks: without a turn of the event loop between batches
          // this loop would starve the adapters until it ended (a service publishes per request)
          await nextTurn();
          const before = published;
          published += Math.min(64, ids.length - i);
          if (Math.floor(published / 10_000) > Math.floor(before / 10_000))
            log(`  ${elapsed()} s: published ${published} of ${total}`);
        }
      }
    })();
    const faults = injectFaults({
      total,
      relational,
      csv: () => csv,
      webhook,
      restartCsv: async () => {
        await csv.stop();
        csv = await buildCsvAdapter(csvDeps());
        await csv.start();
      },
      log: (line) => log(`  ${elapsed()} s: ${line}`),
      deadline: started + (options.timeoutMs ?? 30 * 60_000),
    });
    await publishing;
    const publishSeconds = (Date.now() - started) / 1000;
    log(`  published ${total} in ${publishSeconds.toFixed(1)} s`);

    const timeout = options.timeoutMs ?? 30 * 60_000;
    // Counting 100,000 audit rows or journal lines is itself work that competes with the
    // adapters on two cores (and PGlite is one connection): poll once a second.
    const poll = 1000;
    const auditCount = async () =>
      Number(
        (
          await db.query<{ n: string }>(
            'SELECT count(*) AS n FROM audit_log WHERE attachment_id = $1',
            [relationalAttachment.attachmentId],
          )
        ).rows[0]!.n,
      );
    const journal = join(
      stateDirFor(join(dir, 'csv'), csvAttachment.attachmentId),
      'journal.jsonl',
    );
    const journalLines = async () =>
      (await readFile(journal, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
    const webhookDelivered = () => receiver.deliveries.length;
    progress = setInterval(() => {
      void Promise.all([auditCount(), journalLines()]).then(([audit, journal]) =>
        log(
          `  ${((Date.now() - started) / 1000).toFixed(0)} s: relational ${audit}, csv ${journal}, webhook ${webhookDelivered()} of ${total}`,
        ),
      );
    }, 5000);
    // the faults are part of the run: they happen before the targets are checked
    const faultProblems = await faults;
    await Promise.all([
      waitFor('relational', async () => (await auditCount()) >= total, timeout, poll).then(
        () => (done.relational = (Date.now() - started) / 1000),
      ),
      waitFor('csv', async () => (await journalLines()) >= total, timeout, poll).then(
        () => (done.csv = (Date.now() - started) / 1000),
      ),
      waitFor('webhook', () => webhookDelivered() >= total, timeout, poll).then(
        () => (done.webhook = (Date.now() - started) / 1000),
      ),
    ]);
    clearInterval(progress);
    const totalSeconds = (Date.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuAtStart);
    problems.push(...faultProblems);
    await new Promise((resolve) => setTimeout(resolve, 500));

    // Exactly once.
    if ((await auditCount()) !== total)
      problems.push(`relational: ${await auditCount()} audit rows for ${total} events`);
    const distinctAudit = Number(
      (
        await db.query<{ n: string }>(
          'SELECT count(DISTINCT record_id) AS n FROM audit_log WHERE attachment_id = $1',
          [relationalAttachment.attachmentId],
        )
      ).rows[0]!.n,
    );
    if (distinctAudit !== total)
      problems.push(`relational: ${distinctAudit} distinct events audited`);
    if ((await journalLines()) !== total)
      problems.push(`csv: ${await journalLines()} journal entries for ${total} events`);
    const perRecord = new Map<string, number>();
    for (const d of receiver.deliveries)
      perRecord.set(
        String(d.headers['idempotency-key']),
        (perRecord.get(String(d.headers['idempotency-key'])) ?? 0) + 1,
      );
    if (perRecord.size !== total || [...perRecord.values()].some((n) => n !== 1)) {
      const repeated = [...perRecord].filter(([, n]) => n > 1).slice(0, 5);
      const when = (key: string) =>
        receiver.deliveries
          .filter((d) => d.headers['idempotency-key'] === key)
          .map((d) => `${((d.receivedAt - started) / 1000).toFixed(1)} s`);
      problems.push(
        `webhook: ${perRecord.size} events delivered, ${receiver.deliveries.length} deliveries for ${total}` +
          (repeated.length
            ? ` (repeated: ${repeated.map(([key]) => `${key} at ${when(key).join(' and ')}`).join('; ')})`
            : ''),
      );
    }

    // Final state per key: the last update.
    const last = `seq-${perKey - 1}`;
    const rows = await db.query<{ n: string }>(
      'SELECT count(*) AS n FROM interns WHERE intern_id LIKE $1 AND mentor = $2',
      ['soak-%', last],
    );
    if (Number(rows.rows[0]!.n) !== keys)
      problems.push(`relational: ${rows.rows[0]!.n} of ${keys} rows hold the last update`);
    const csvRows = parseCsv(await readFile(join(dir, 'csv', 'soak', 'interns.csv'), 'utf8')).slice(
      1,
    );
    const mentorColumn = ['record_id', ...INTERNS.fields.map((f) => f.name)].indexOf('mentor');
    if (csvRows.length !== keys || csvRows.some((row) => row[mentorColumn] !== last))
      problems.push(`csv: ${csvRows.length} lines for ${keys} keys, or not all at the last update`);

    // Per-key order of updates (one topic, so one partition per key).
    const audited = await db.query<{ natural_key: string; mentor: string }>(
      "SELECT natural_key, payload->>'mentor' AS mentor FROM audit_log WHERE attachment_id = $1 AND lifecycle = 'update' ORDER BY audit_id",
      [relationalAttachment.attachmentId],
    );
    checkOrder(
      'relational',
      audited.rows.map((r) => [r.natural_key, r.mentor]),
      problems,
    );
    checkOrder(
      'webhook',
      receiver.deliveries
        .map(
          (d) =>
            JSON.parse(d.body) as {
              naturalKey: string;
              recordType: string;
              payload: { mentor: string };
            },
        )
        .filter((b) => b.recordType === 'intern.updated')
        .map((b) => [b.naturalKey, b.payload.mentor]),
      problems,
    );
    if (harness.deadLetters.length > 0) problems.push(`${harness.deadLetters.length} dead letters`);
    return {
      driver: options.driver + (usePostgres ? ' (relational on PostgreSQL)' : ''),
      records: total,
      keys,
      publishSeconds,
      totalSeconds,
      recordsPerSecond: Math.round(total / totalSeconds),
      perAdapterSeconds: { relational: done.relational!, csv: done.csv!, webhook: done.webhook! },
      cpuMsPerEvent: Math.round(((cpu.user + cpu.system) / 1000 / total) * 1000) / 1000,
      problems,
    };
  } finally {
    clearInterval(progress); // also when a wait times out, or the process never exits
    for (const adapter of adapters()) await adapter.stop();
    await harness.cleanup();
    await receiver.close();
    if (testDb) {
      await db.close();
      await testDb.drop();
    }
    await rm(dir, { recursive: true, force: true });
  }
}

/** Records the adapter has committed (its consumer's offsets: in memory, so cheap to poll). */
function consumed(adapter: Adapter): number {
  return adapter.runtime
    .status()
    .assignments.filter((a) => a.topic.startsWith('interns.'))
    .reduce((sum, a) => sum + a.committedOffset, 0);
}

/**
 * The faults, driven by what the adapters have consumed (not by what was published, which
 * on a fast broker ends before the adapters are under way): the relational adapter is
 * paused once it has committed a quarter of the events and resumed once the webhook has
 * moved on by another quarter (or finished); the csv adapter is stopped and started
 * again once it has committed 60%. Resolves with problems: a fault that never happened,
 * or a paused adapter that went on committing.
 */
async function injectFaults(options: {
  total: number;
  relational: Adapter;
  csv: () => Adapter;
  webhook: Adapter;
  restartCsv: () => Promise<void>;
  log: (line: string) => void;
  deadline: number;
}): Promise<string[]> {
  const { total, relational, webhook, log } = options;
  const problems: string[] = [];
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  let pausedAt: number | undefined;
  /** Committed counts a second after the pause, once the records in hand at the pause are committed. */
  let held: { relational: number; webhook: number } | undefined;
  let resumed = false;
  let restarted = false;
  while (!(resumed && restarted) && Date.now() < options.deadline) {
    if (pausedAt === undefined && consumed(relational) >= total * 0.25) {
      relational.runtime.pause();
      pausedAt = Date.now();
      log(`relational paused at ${consumed(relational)} committed`);
    }
    if (pausedAt !== undefined && !held && Date.now() - pausedAt >= 1000)
      held = { relational: consumed(relational), webhook: consumed(webhook) };
    if (held && !resumed && consumed(webhook) >= Math.min(total, held.webhook + total * 0.25)) {
      const moved = consumed(relational) - held.relational;
      if (moved > 0) problems.push(`relational: committed ${moved} records while paused`);
      relational.runtime.resume();
      resumed = true;
      log(
        `relational resumed at ${consumed(relational)} committed (held while the webhook moved on by ${consumed(webhook) - held.webhook})`,
      );
    }
    if (!restarted && consumed(options.csv()) >= total * 0.6) {
      const at = consumed(options.csv());
      await options.restartCsv();
      restarted = true;
      log(`csv restarted at ${at} committed`);
    }
    await sleep(20);
  }
  if (!resumed) problems.push('relational was not paused and resumed before the deadline');
  if (!restarted) problems.push('csv was not restarted before the deadline');
  return problems;
}

function checkOrder(target: string, events: Array<[string, string]>, problems: string[]): void {
  const lastSeen = new Map<string, number>();
  let violations = 0;
  for (const [key, mentor] of events) {
    const seq = Number(mentor.replace('seq-', ''));
    if ((lastSeen.get(key) ?? 0) >= seq) violations += 1;
    lastSeen.set(key, seq);
  }
  if (violations > 0) problems.push(`${target}: ${violations} updates out of per-key order`);
}
