/**
 * One attachment's CSV file and its state (spec 6.4–6.5):
 * - a journal (`<state dir>/journal.jsonl`, see `journal.ts`) of every applied event,
 *   which is both the dedup store of recordIds and the keyed store of current rows and
 *   tombstones per natural key;
 * - the file is always a view of that state: creates append their lines (header written
 *   once, when the file is new); an update or tombstone rebuilds the file from the state
 *   (temp file, fsync, rename, fsync of the folder, so a reader never sees half a file).
 *
 * Each event is decided at once against the in-memory state (dedup, stale, apply) and its
 * journal entry joins the next group commit, so events of several partitions share one
 * fsync. A create is acknowledged once its entry is durable and its line is in the file;
 * an update or tombstone once its entry is durable. File work runs one step at a time
 * behind the decisions and batches: the creates queued meanwhile go out in one append,
 * and rebuilds coalesce, waiting as long as the last one took before starting the next
 * (so a stream of updates spends at most about half its time rebuilding, and the file
 * trails the journal by that long, never torn).
 *
 * Failures: a failed journal write makes the next event reload the state from the
 * journal on disk (what was not durable was not acknowledged and comes again); a failed
 * file write is retried, as a rebuild, before the next event is accepted, so the failure
 * reaches the retry policy. On open the file is rebuilt from the journal. The file is
 * locked for one writer.
 */
import { mkdir, open, readFile, rename, stat, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { UnmappableDataError } from '../runtime/failures.js';
import { acquireFileLock, type FileLock } from './file-lock.js';
import { Journal } from './journal.js';
import { formatCsvRecord, parseCsv } from './rfc4180.js';

interface JournalEntry {
  /** recordId */
  r: string;
  /** natural key */
  k: string;
  /** row values; null for a tombstone */
  v: string[] | null;
  /** occurredAt; '' for an event only recorded as seen (a stale one, v null) or a row adopted from an existing file */
  t: string;
  /** The event's revision, when it carried one. */
  n?: number;
}

interface Row {
  values: string[];
  at: string;
  /** The row formatted once, so a rebuild only joins lines. */
  line: string;
}

interface FileWaiter {
  version: number;
  resolve(): void;
  reject(error: unknown): void;
}

/** Longest pause between two rebuilds, whatever the last one took. */
const MAX_REBUILD_PAUSE_MS = 1000;

export type ApplyOutcome = 'written' | 'duplicate' | 'stale';

/** What an event was, and what to await before acknowledging it. */
interface Decision {
  outcome: ApplyOutcome;
  durable?: Promise<unknown>;
}

export class CsvFile {
  private readonly seen = new Set<string>();
  private readonly rows = new Map<string, Row>();
  private readonly tombstones = new Map<string, string>();
  /** Newest revision applied per key (events that carry one are ordered by it, not by time). */
  private readonly revisions = new Map<string, number>();
  private readonly journal: Journal<JournalEntry>;
  private lock: FileLock | undefined;
  /** Events applied to the state / reflected in the file. */
  private stateVersion = 0;
  private fileVersion = 0;
  /** Lines of the creates applied since `fileVersion`, or null when the next file step must be a rebuild. */
  private appends: string[] | null = [];
  private readonly fileWaiters: FileWaiter[] = [];
  private fileWork: Promise<void> = Promise.resolve();
  private fileWorking = false;
  private fileError: unknown;
  private appendHandle: FileHandle | undefined;
  private lastRebuildMs = 0;
  private cutPause: (() => void) | undefined;
  private decisions: Promise<unknown> = Promise.resolve();
  /** Set as close starts: later events are refused, so nothing writes the file once its lock is released. */
  private closed = false;

  constructor(
    readonly path: string,
    readonly columns: readonly string[],
    journalPath: string,
    /** Column index holding the natural key / recordId, for adopting an existing file. */
    private readonly keyColumn: number,
    private readonly recordIdColumn: number,
    private readonly durable: boolean,
  ) {
    this.journal = new Journal(journalPath, durable);
  }

  async open(): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
    await mkdir(dirname(this.journal.path), { recursive: true });
    this.lock = await acquireFileLock(this.path);
    try {
      const entries = await this.journal.open();
      for (const entry of entries) this.replay(entry);
      if (entries.length > 0) await this.rebuild();
      else await this.adoptExistingFile();
      this.fileVersion = this.stateVersion;
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  /** Whether the event is known; false while a failure leaves the state to be checked again. */
  has(recordId: string): boolean {
    return !this.journal.failed && this.fileError === undefined && this.seen.has(recordId);
  }

  /**
   * Create: append a line unless the key already holds a row or a newer tombstone. With
   * a revision: unless the key saw this revision or a newer one (then a re-create
   * replaces whatever the key holds).
   */
  async create(
    recordId: string,
    key: string,
    values: string[],
    at: string,
    revision?: number,
  ): Promise<ApplyOutcome> {
    const { outcome, durable } = await this.decide((): Decision => {
      if (this.seen.has(recordId)) return { outcome: 'duplicate' };
      if (revision === undefined) {
        const tombstone = this.tombstones.get(key);
        if (this.rows.has(key) || (tombstone !== undefined && tombstone > at))
          return { outcome: 'stale', durable: this.recordSeen(recordId, key) };
      } else if ((this.revisions.get(key) ?? 0) >= revision)
        return { outcome: 'stale', durable: this.recordSeen(recordId, key) };
      const replaces = this.rows.has(key);
      const journaled = this.apply({
        r: recordId,
        k: key,
        v: values,
        t: at,
        ...(revision === undefined ? {} : { n: revision }),
      });
      if (replaces) {
        this.appends = null;
        this.startFileWork();
        return { outcome: 'written', durable: journaled };
      }
      this.appends?.push(this.rows.get(key)!.line);
      return {
        outcome: 'written',
        durable: Promise.all([journaled, this.fileReaches(this.stateVersion)]),
      };
    });
    await durable;
    return outcome;
  }

  /** Update (values) or tombstone (null): keyed state, then a rebuild. Older events are ignored. */
  async change(
    recordId: string,
    key: string,
    values: string[] | null,
    at: string,
    revision?: number,
  ): Promise<ApplyOutcome> {
    const { outcome, durable } = await this.decide((): Decision => {
      if (this.seen.has(recordId)) return { outcome: 'duplicate' };
      const current = this.rows.get(key)?.at ?? this.tombstones.get(key);
      const stale =
        revision === undefined
          ? current !== undefined && current > at
          : (this.revisions.get(key) ?? 0) >= revision;
      if (stale) return { outcome: 'stale', durable: this.recordSeen(recordId, key) };
      const journaled = this.apply({
        r: recordId,
        k: key,
        v: values,
        t: at,
        ...(revision === undefined ? {} : { n: revision }),
      });
      this.appends = null;
      this.startFileWork();
      return { outcome: 'written', durable: journaled };
    });
    await durable;
    return outcome;
  }

  rowsAsObjects(): Array<Record<string, string>> {
    return [...this.rows.values()].map(({ values }) =>
      Object.fromEntries(this.columns.map((c, i) => [c, values[i] ?? ''])),
    );
  }

  /** Resolves once the file reflects every event applied so far (a pending rebuild starts now). */
  async flush(): Promise<void> {
    if (this.fileError !== undefined) {
      this.fileError = undefined;
      this.appends = null;
    }
    await this.fileReaches(this.stateVersion);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.flush().catch(() => undefined);
    await this.journal.close();
    await this.closeAppendHandle();
    await this.lock?.release();
    this.lock = undefined;
  }

  /**
   * One event at a time: first settle what a failure left behind, then `decide`
   * synchronously against the state. What it returns to await (durability) is awaited
   * outside, so the next event is decided while this one's entry is being written.
   */
  private decide<T>(decide: () => T): Promise<T> {
    const run = this.decisions.then(async () => {
      if (this.closed) throw new Error(`csv file ${this.path} is closed`);
      if (this.journal.failed) await this.reload();
      if (this.fileError !== undefined) await this.flush();
      return decide();
    });
    this.decisions = run.catch(() => undefined);
    return run;
  }

  /** A stale event is still "seen", so a redelivery is a duplicate. */
  private recordSeen(recordId: string, key: string): Promise<void> {
    this.seen.add(recordId);
    return this.journal.append({ r: recordId, k: key, v: null, t: '' });
  }

  private apply(entry: JournalEntry): Promise<void> {
    this.replay(entry);
    return this.journal.append(entry);
  }

  private replay(entry: JournalEntry): void {
    if (entry.r) this.seen.add(entry.r);
    if (entry.t === '' && entry.v === null) return;
    if (entry.n !== undefined)
      this.revisions.set(entry.k, Math.max(entry.n, this.revisions.get(entry.k) ?? 0));
    this.stateVersion += 1;
    this.rows.delete(entry.k);
    if (entry.v === null) this.tombstones.set(entry.k, entry.t);
    else {
      this.rows.set(entry.k, { values: entry.v, at: entry.t, line: formatCsvRecord(entry.v) });
      this.tombstones.delete(entry.k);
    }
  }

  /** After a failed journal write: the state again as the journal on disk holds it. */
  private async reload(): Promise<void> {
    await this.fileWork;
    this.seen.clear();
    this.rows.clear();
    this.tombstones.clear();
    this.revisions.clear();
    this.stateVersion = 0;
    for (const entry of await this.journal.open()) this.replay(entry);
    this.appends = null;
    this.failFileWaiters(
      new Error(`csv file ${this.path}: state reloaded after a failed journal write`),
    );
    this.fileVersion = 0;
    await this.flush();
  }

  /** Resolves once the file holds version `version` of the state. */
  private fileReaches(version: number): Promise<void> {
    if (this.fileVersion >= version) return Promise.resolve();
    const reached = new Promise<void>((resolve, reject) =>
      this.fileWaiters.push({ version, resolve, reject }),
    );
    this.cutPause?.(); // someone waits: no more gathering
    this.startFileWork();
    return reached;
  }

  private startFileWork(): void {
    if (!this.fileWorking && this.fileError === undefined) this.fileWork = this.runFileWork();
  }

  /** Appends and rebuilds one at a time, each covering every event applied before it started. */
  private async runFileWork(): Promise<void> {
    this.fileWorking = true;
    try {
      while (this.fileVersion < this.stateVersion) {
        if (this.appends === null && this.fileWaiters.length === 0) await this.pauseBeforeRebuild();
        const target = this.stateVersion;
        const appends = this.appends;
        this.appends = [];
        if (appends === null) await this.rebuild();
        else await this.append(appends.join(''));
        this.fileVersion = target;
        this.settleFileWaiters();
      }
    } catch (error) {
      // all at once, with no await: a flush arriving now must find the failure recorded
      this.fileError = error;
      this.appends = null;
      void this.closeAppendHandle();
      this.failFileWaiters(error);
    }
    this.fileWorking = false;
  }

  /** Lets updates gather while no one waits for the file: as long as the last rebuild took. */
  private async pauseBeforeRebuild(): Promise<void> {
    const pause = Math.min(this.lastRebuildMs, MAX_REBUILD_PAUSE_MS);
    if (pause === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, pause);
      timer.unref();
      this.cutPause = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.cutPause = undefined;
  }

  private settleFileWaiters(): void {
    for (let i = this.fileWaiters.length - 1; i >= 0; i -= 1) {
      const waiter = this.fileWaiters[i]!;
      if (waiter.version > this.fileVersion) continue;
      this.fileWaiters.splice(i, 1);
      waiter.resolve();
    }
  }

  private failFileWaiters(error: unknown): void {
    for (const waiter of this.fileWaiters.splice(0)) waiter.reject(error);
  }

  private header(): string {
    return formatCsvRecord(this.columns);
  }

  private async append(text: string): Promise<void> {
    if (!this.appendHandle) {
      const size = await stat(this.path).then(
        (s) => s.size,
        () => 0,
      );
      this.appendHandle = await open(this.path, 'a');
      if (size === 0) text = this.header() + text;
    }
    await this.appendHandle.appendFile(text);
    if (this.durable) await this.appendHandle.datasync();
  }

  private async closeAppendHandle(): Promise<void> {
    const handle = this.appendHandle;
    this.appendHandle = undefined;
    await handle?.close().catch(() => undefined);
  }

  private async rebuild(): Promise<void> {
    const started = performance.now();
    const temp = `${this.path}.tmp-${process.pid}`;
    let text = this.header();
    for (const row of this.rows.values()) text += row.line;
    const handle = await open(temp, 'w');
    try {
      await handle.writeFile(text);
      if (this.durable) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, this.path);
    await this.closeAppendHandle(); // it holds the file the rename replaced
    if (this.durable) {
      const dir = await open(dirname(this.path), 'r');
      await dir.sync().catch(() => undefined);
      await dir.close();
    }
    this.lastRebuildMs = performance.now() - started;
  }

  /**
   * A file written before this state existed: its header must match; its rows become
   * state, journaled (with no time), so a later rebuild from the journal keeps them.
   */
  private async adoptExistingFile(): Promise<void> {
    const text = await readFile(this.path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '';
      throw error;
    });
    if (!text) return;
    const [header, ...records] = parseCsv(text);
    if (header && header.join(',') !== this.columns.join(',')) {
      throw new UnmappableDataError(
        `${this.path} has header ${header.join(',')}, the attachment wants ${this.columns.join(',')}`,
      );
    }
    const journaled = records.map((values) => {
      const key = values[this.keyColumn] ?? values[this.recordIdColumn] ?? '';
      return this.apply({ r: values[this.recordIdColumn] ?? '', k: key, v: values, t: '' });
    });
    await Promise.all(journaled);
  }
}
