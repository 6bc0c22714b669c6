/**
 * Where the integration bench sees records land, as an observer outside the platform
 * would: the webhook's receiver (a record lands when its request arrives), the csv file
 * (read on from where the last poll stopped) and the relational table (asked for the ids
 * not yet seen there). It keeps the bench's ledger (`landing-ledger.ts`): the load
 * client reports each answered record to it, and the bench asks it for a phase's figures
 * once the phase's records are in all three targets.
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
  /** How often the file and the table are read (the table less often while many are pending). */
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

/** The table poll: asks for the pending ids only, so it costs what the backlog is. */
export interface TablePoll {
  watch(recordIds: string[]): void;
  poll(): Promise<void>;
  /** The wait before the next poll: longer while thousands are pending (one id a 20 µs). */
  intervalMs(pollMs: number): number;
}

export function createTablePoll(db: SqlExecutor, seen: (landings: Landing[]) => void): TablePoll {
  const pending = new Set<string>();
  return {
    watch(recordIds) {
      for (const id of recordIds) pending.add(id);
    },
    async poll() {
      const ids = [...pending];
      for (let i = 0; i < ids.length; i += 5000) {
        const at = clock(); // what the statement's snapshot saw: the rows there at its start
        const { rows } = await db.query<{ record_id: string }>(
          'SELECT record_id::text AS record_id FROM interns WHERE record_id = ANY($1::uuid[])',
          [ids.slice(i, i + 5000)],
        );
        const landings: Landing[] = [];
        for (const row of rows) {
          pending.delete(row.record_id);
          landings.push([row.record_id, 'table', at]);
        }
        if (landings.length > 0) seen(landings);
      }
    },
    intervalMs: (pollMs) => pollMs + pending.size / 50,
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
      const wait = table?.intervalMs(options.pollMs) ?? options.pollMs;
      await new Promise((resolve) => setTimeout(resolve, wait));
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
