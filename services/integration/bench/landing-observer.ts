/**
 * Where the integration bench sees records land, as an observer outside the platform
 * would: the webhook's receiver (a record lands when its request arrives), the csv file
 * (read on from where the last poll stopped) and the relational table (its audit log, read
 * on from the last row seen: `createTablePoll`). It keeps the bench's ledger
 * (`landing-ledger.ts`): the load client reports each answered record to it, and the
 * bench asks it for a phase's figures once the phase's records are in all three targets.
 *
 * The bench runs it on a worker thread of its own (`landing-observer-thread.ts`), as it
 * runs its clients, so the platform's event loop carries the platform and not the bench:
 * on that loop the observer (the receiver's requests and their JSON, the polls and their
 * answers) was 7 % of the batch phase's main-thread profile, and the ledger 4.4 % more
 * (28 Nov 2026). The table goes with it on PostgreSQL, through a connection of its own; an
 * embedded PGlite answers only its own thread, so there the bench polls the table on the
 * platform's loop with `createTablePoll` (told which ids by `watchTable`, and handing what
 * it sees to `landed`). `BENCH_OBSERVER=inline` runs all of it on the platform's loop, as
 * every figure before 28 Nov 2026 16:30 UTC was taken.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { createSqlDatabase, type SqlExecutor } from '@platform/core';
import {
  LandingLedger,
  type Landing,
  type PhaseLandings,
  type PhaseTimes,
} from './landing-ledger.js';
import { clock, type AcceptedRecord } from './load-client.js';

export type { Landing, PhaseLandings, PhaseTimes } from './landing-ledger.js';

export interface LandingObserverOptions {
  /** The csv adapter's file of the bench's contract. */
  csvPath: string;
  /**
   * The PostgreSQL database holding the relational table; unset, the table is not
   * polled here (the bench polls an embedded PGlite on its own thread).
   */
  databaseUrl?: string | undefined;
  /** How often the file and the table are read. */
  pollMs: number;
}

/** What the bench asks of a phase: its records, how long it may take to land. */
export interface SettleRequest extends PhaseTimes {
  phase: string;
  /** Records the load client had answered when the phase's submissions ended. */
  expected: number;
  timeoutMs: number;
}

export interface LandingObserver {
  /** Where the bench's webhook attachment posts. */
  webhookUrl: string;
  /** Records the load client had answered in `phase` (the ledger's). */
  accepted(phase: string, records: AcceptedRecord[]): void;
  /** Landings the bench saw itself (its table poll on PGlite). */
  landed(landings: Landing[]): void;
  /** The phase's figures once its `expected` records are in all three targets. */
  settle(request: SettleRequest): Promise<PhaseLandings>;
  close(): Promise<void>;
}

/** The table poll: what the relational target wrote since the last poll. */
export interface TablePoll {
  watch(recordIds: string[]): void;
  poll(): Promise<void>;
}

export interface TablePollOptions {
  /**
   * How long an `audit_id` skipped by the rows read is looked for again: a transaction
   * that took a lower id may commit after one that took a higher id. @defaultValue 10,000
   */
  holeMs?: number;
  /**
   * A watched record not seen this long is asked for by id in the table itself (one whose
   * audit id was given up as a hole, should its transaction have run longer than `holeMs`).
   * @defaultValue 20,000
   */
  stragglerMs?: number;
}

/**
 * Reads the relational target's audit log on from the last row it saw (`audit_id`), so a
 * poll costs the rows written since the last one, not the records still pending. The
 * target writes a record's audit row in the transaction that writes its row in the table
 * (`batch-write.ts`), so the two become visible together; a row that did not change the
 * table (`applied` false: a stale or duplicate event) is not a landing.
 *
 * Why not ask for the pending ids: that poll (`record_id = ANY(pending)`, each id an index
 * probe) cost PostgreSQL 18 % of its statement time in the single-POST phase (245 polls
 * of 2.9 ms, 29 Nov 2026 04:19 UTC, 2-core AMD EPYC, a statement log), CPU the platform's
 * own statements then waited for. Ids are handed out in insert order but committed in
 * commit order: an id below the highest one read and not read yet (a hole) is asked for
 * by id until it shows up or `holeMs` passes (a rolled-back batch, an insert that found
 * its row already there). A watched record still unseen after `stragglerMs` is asked for
 * in the table by id, as the poll always did.
 */
export function createTablePoll(
  db: SqlExecutor,
  seen: (landings: Landing[]) => void,
  options: TablePollOptions = {},
): TablePoll {
  const holeMs = options.holeMs ?? 10_000;
  const stragglerMs = options.stragglerMs ?? 20_000;
  let last = 0;
  /** Ids below `last` not read yet, with when they were first missed. */
  const holes = new Map<number, number>();
  /** Records applied in the table, watched or not (a record can land before its answer is reported). */
  const landed = new Set<string>();
  /** Watched records not seen yet, with when they were watched. */
  const pending = new Map<string, number>();

  const readAudit = async () => {
    const at = clock(); // what the statement's snapshot saw: the rows there at its start
    const { rows } = await db.query<{ audit_id: string; record_id: string; applied: boolean }>(
      `SELECT audit_id::text AS audit_id, record_id::text AS record_id, applied FROM audit_log
       WHERE audit_id > $1 OR audit_id = ANY($2::bigint[]) ORDER BY audit_id`,
      // Unnamed, so planned for these values each time: a prepared statement's generic plan
      // for `audit_id > $1` scanned the whole log (4.6 ms a poll against 0.5 ms, parse included).
      [last, [...holes.keys()]],
    );
    const landings: Landing[] = [];
    for (const row of rows) {
      const id = Number(row.audit_id);
      if (id > last) {
        for (let missed = last + 1; missed < id; missed++) holes.set(missed, at);
        last = id;
      } else holes.delete(id);
      if (row.applied && !landed.has(row.record_id)) {
        landed.add(row.record_id);
        pending.delete(row.record_id);
        landings.push([row.record_id, 'table', at]);
      }
    }
    for (const [id, since] of holes) if (at - since >= holeMs) holes.delete(id);
    if (landings.length > 0) seen(landings);
  };

  const readStragglers = async () => {
    const at = clock();
    // `pending` is in the order records were watched: the stragglers are its first entries.
    const ids: string[] = [];
    for (const [id, watchedAt] of pending) {
      if (at - watchedAt <= stragglerMs) break;
      ids.push(id);
    }
    for (let i = 0; i < ids.length; i += 5000) {
      const { rows } = await db.query<{ record_id: string }>(
        'SELECT record_id::text AS record_id FROM interns WHERE record_id = ANY($1::uuid[])',
        [ids.slice(i, i + 5000)],
      );
      for (const row of rows) {
        landed.add(row.record_id);
        pending.delete(row.record_id);
      }
      if (rows.length > 0) seen(rows.map((row): Landing => [row.record_id, 'table', at]));
    }
  };

  return {
    watch(recordIds) {
      const at = clock();
      for (const id of recordIds) if (!landed.has(id)) pending.set(id, at);
    },
    async poll() {
      // Nothing asked for yet: the platform may not have created the audit log yet.
      if (pending.size === 0 && landed.size === 0) return;
      await readAudit();
      await readStragglers();
    },
  };
}

/**
 * The csv file, read on from where the last poll stopped (the bench only creates, so the
 * adapter appends; a rebuild, seen as a new inode or a shorter file, is read whole).
 * Synchronous calls: a stat and a short read cost microseconds this way, where each
 * promise-based call (thread pool, handle objects) cost about a record's journal write.
 */
function createFilePoll(csvPath: string, seen: (landings: Landing[]) => void): () => void {
  const file = { ino: -1, offset: 0, tail: '' };
  const ids = new Set<string>();
  return () => {
    let info;
    try {
      info = statSync(csvPath);
    } catch {
      return;
    }
    if (info.ino !== file.ino || info.size < file.offset)
      Object.assign(file, { ino: info.ino, offset: 0, tail: '' });
    if (info.size === file.offset) return;
    const fd = openSync(csvPath, 'r');
    try {
      const chunk = Buffer.alloc(info.size - file.offset);
      const bytesRead = readSync(fd, chunk, 0, chunk.length, file.offset);
      file.offset += bytesRead;
      const lines = (file.tail + chunk.subarray(0, bytesRead).toString('utf8')).split('\r\n');
      file.tail = lines.pop() ?? '';
      const at = clock();
      const landings: Landing[] = [];
      for (const line of lines) {
        const id = line.slice(0, 36);
        if (id.length === 36 && !ids.has(id)) {
          ids.add(id);
          landings.push([id, 'file', at]);
        }
      }
      if (landings.length > 0) seen(landings);
    } finally {
      closeSync(fd);
    }
  };
}

/**
 * Starts the receiver and the polls. Without `databaseUrl` the table is the bench's to
 * poll: `watchTable` gets the ids to look for there.
 */
export async function startLandingObserver(
  options: LandingObserverOptions,
  watchTable?: (recordIds: string[]) => void,
): Promise<LandingObserver> {
  const ledger = new LandingLedger();
  const waiting = new Set<{ request: SettleRequest; done(): void }>();
  // A phase settles on the report or the landing that completes it.
  const seen = (landings: Landing[]) => {
    ledger.landed(landings);
    settleWaiting();
  };
  const settleWaiting = () => {
    for (const waiter of waiting)
      if (ledger.settled(waiter.request.phase, waiter.request.expected)) waiter.done();
  };
  const hooked = new Set<string>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = clock();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as
        { recordId: string } | Array<{ recordId: string }>;
      const landings: Landing[] = [];
      for (const { recordId } of Array.isArray(body) ? body : [body]) {
        if (!hooked.has(recordId)) {
          hooked.add(recordId);
          landings.push([recordId, 'webhook', at]);
        }
      }
      if (landings.length > 0) seen(landings);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  const db = options.databaseUrl
    ? await createSqlDatabase({ url: options.databaseUrl, dataDir: 'unused' })
    : undefined;
  const table = db ? createTablePoll(db, seen) : undefined;
  const pollFile = createFilePoll(options.csvPath, seen);
  let polling = true;
  const poller = (async () => {
    while (polling) {
      await table?.poll();
      pollFile();
      await new Promise((resolve) => setTimeout(resolve, options.pollMs));
    }
  })();
  return {
    webhookUrl: `http://127.0.0.1:${port}/hook`,
    accepted(phase, records) {
      ledger.accepted(phase, records);
      const ids = records.map(([recordId]) => recordId);
      if (table) table.watch(ids);
      else watchTable?.(ids);
      settleWaiting();
    },
    landed: seen,
    settle: (request) =>
      new Promise<PhaseLandings>((resolve, reject) => {
        const waiter = {
          request,
          done: () => {
            waiting.delete(waiter);
            clearTimeout(timer);
            resolve(ledger.figures(request.phase, request));
          },
        };
        const timer = setTimeout(() => {
          waiting.delete(waiter);
          reject(
            new Error(
              `records did not reach all targets within ${request.timeoutMs / 1000} s: ` +
                ledger.describe(request.phase),
            ),
          );
        }, request.timeoutMs);
        waiting.add(waiter);
        settleWaiting();
      }),
    async close() {
      polling = false;
      await poller;
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await db?.close();
    },
  };
}
