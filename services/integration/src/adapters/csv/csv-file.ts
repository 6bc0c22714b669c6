/**
 * One attachment's CSV file and its state (spec 6.4–6.5):
 * - a journal (`<state dir>/journal.jsonl`, append-only, fsynced) of every applied event,
 *   which is both the dedup store of recordIds and the keyed store of current rows and
 *   tombstones per natural key;
 * - the file is always a view of that state: a create appends one line (header written
 *   once, when the file is new); an update or tombstone rebuilds the file from the state
 *   (temp file, fsync, rename, fsync of the folder, so a reader never sees half a file).
 * An event is acknowledged once its journal entry is durable. Rebuilds run one at a time
 * behind the writes and coalesce when events arrive faster than a rebuild takes (the file
 * then trails the journal by moments, never torn); a failed rebuild is retried before the
 * next event is accepted (so the failure reaches the retry policy), and on open the file
 * is rebuilt from the journal. The file is locked for one writer.
 */
import { mkdir, open, readFile, rename, stat, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { UnmappableDataError } from '../runtime/failures.js';
import { acquireFileLock, type FileLock } from './file-lock.js';
import { formatCsvRecord, parseCsv } from './rfc4180.js';

interface JournalEntry {
  /** recordId */
  r: string;
  /** natural key */
  k: string;
  /** row values; null for a tombstone */
  v: string[] | null;
  /** occurredAt */
  t: string;
}

export type ApplyOutcome = 'written' | 'duplicate' | 'stale';

export class CsvFile {
  private readonly seen = new Set<string>();
  private readonly rows = new Map<string, { values: string[]; at: string }>();
  private readonly tombstones = new Map<string, string>();
  private lock: FileLock | undefined;
  private journal: FileHandle | undefined;
  /** Events applied to the state / reflected in the file. */
  private stateVersion = 0;
  private fileVersion = 0;
  private operations: Promise<void> = Promise.resolve();
  private fileOps: Promise<void> = Promise.resolve();
  private rebuildQueued = false;
  private rebuildError: unknown;

  constructor(
    readonly path: string,
    readonly columns: readonly string[],
    private readonly journalPath: string,
    /** Column index holding the natural key / recordId, for adopting an existing file. */
    private readonly keyColumn: number,
    private readonly recordIdColumn: number,
    private readonly durable: boolean,
  ) {}

  async open(): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
    await mkdir(dirname(this.journalPath), { recursive: true });
    this.lock = await acquireFileLock(this.path);
    try {
      const journalText = await readFile(this.journalPath, 'utf8').catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return '';
        throw error;
      });
      for (const line of journalText.split('\n')) {
        if (!line.trim()) continue;
        try {
          this.replay(JSON.parse(line) as JournalEntry);
        } catch {
          // a torn last line from a crash: the event was not acknowledged and comes again
        }
      }
      this.journal = await open(this.journalPath, 'a');
      if (journalText.trim()) await this.rebuild();
      else await this.adoptExistingFile();
      this.fileVersion = this.stateVersion;
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  has(recordId: string): boolean {
    return this.seen.has(recordId);
  }

  /** Create: append a line unless the key already holds a row or a newer tombstone. */
  async create(recordId: string, key: string, values: string[], at: string): Promise<ApplyOutcome> {
    let fileWrite: Promise<void> | undefined;
    const outcome = await this.exclusive(async () => {
      const result = await this.applyCreate(recordId, key, values, at);
      fileWrite = result.fileWrite;
      return result.outcome;
    });
    await fileWrite;
    return outcome;
  }

  /** Update (values) or tombstone (null): keyed state, then an atomic rebuild. Older events are ignored. */
  change(recordId: string, key: string, values: string[] | null, at: string): Promise<ApplyOutcome> {
    return this.exclusive(() => this.applyChange(recordId, key, values, at));
  }

  private async applyCreate(
    recordId: string,
    key: string,
    values: string[],
    at: string,
  ): Promise<{ outcome: ApplyOutcome; fileWrite?: Promise<void> }> {
    if (this.seen.has(recordId)) return { outcome: 'duplicate' };
    const tombstone = this.tombstones.get(key);
    if (this.rows.has(key) || (tombstone !== undefined && tombstone > at)) {
      await this.record({ r: recordId, k: key, v: null, t: '' }, false);
      return { outcome: 'stale' };
    }
    await this.surfaceRebuildError();
    await this.record({ r: recordId, k: key, v: values, t: at }, true);
    const version = this.stateVersion;
    const fileWrite = this.serialize(async () => {
      if (this.fileVersion >= version) return;
      if (this.fileVersion === version - 1) {
        await this.append(formatCsvRecord(values));
        this.fileVersion = version;
      } else await this.rebuild();
    });
    return { outcome: 'written', fileWrite };
  }

  private async applyChange(recordId: string, key: string, values: string[] | null, at: string): Promise<ApplyOutcome> {
    if (this.seen.has(recordId)) return 'duplicate';
    const current = this.rows.get(key)?.at ?? this.tombstones.get(key);
    if (current !== undefined && current > at) {
      await this.record({ r: recordId, k: key, v: null, t: '' }, false);
      return 'stale';
    }
    await this.surfaceRebuildError();
    await this.record({ r: recordId, k: key, v: values, t: at }, true);
    this.scheduleRebuild();
    return 'written';
  }

  rowsAsObjects(): Array<Record<string, string>> {
    return [...this.rows.values()].map(({ values }) => Object.fromEntries(this.columns.map((c, i) => [c, values[i] ?? ''])));
  }

  /** Resolves once the file reflects every event applied so far. */
  async flush(): Promise<void> {
    await this.fileOps;
    if (this.fileVersion < this.stateVersion) await this.serialize(() => this.rebuild());
  }

  async close(): Promise<void> {
    await this.flush().catch(() => undefined);
    await this.journal?.close().catch(() => undefined);
    this.journal = undefined;
    await this.lock?.release();
    this.lock = undefined;
  }

  /** `apply` false records only the recordId (a stale event is still "seen"). */
  private async record(entry: JournalEntry, apply: boolean): Promise<void> {
    if (!this.journal) throw new Error(`csv file ${this.path} is closed`);
    await this.journal.write(`${JSON.stringify(apply ? entry : { r: entry.r, k: entry.k, v: null, t: '' })}\n`);
    if (this.durable) await this.journal.datasync();
    if (apply) this.replay(entry);
    else this.seen.add(entry.r);
  }

  /** Check, journal and state of one event at a time (events of several partitions arrive at once). */
  private exclusive<T>(op: () => Promise<T>): Promise<T> {
    const run = this.operations.then(op, op);
    this.operations = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** File writes (appends, rebuilds) one at a time, in order. */
  private serialize<T>(op: () => Promise<T>): Promise<T> {
    const run = this.fileOps.then(op, op);
    this.fileOps = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private scheduleRebuild(): void {
    if (this.rebuildQueued) return;
    this.rebuildQueued = true;
    void this.serialize(async () => {
      this.rebuildQueued = false;
      if (this.fileVersion >= this.stateVersion) return;
      try {
        await this.rebuild();
        this.rebuildError = undefined;
      } catch (error) {
        this.rebuildError = error;
      }
    });
  }

  /** A background rebuild failed: retry it now, throwing (to the retry policy) while it still fails. */
  private async surfaceRebuildError(): Promise<void> {
    if (this.rebuildError === undefined) return;
    await this.serialize(() => this.rebuild());
    this.rebuildError = undefined;
  }

  private replay(entry: JournalEntry): void {
    this.seen.add(entry.r);
    if (entry.t === '') return;
    this.stateVersion += 1;
    if (entry.v === null) {
      this.rows.delete(entry.k);
      this.tombstones.set(entry.k, entry.t);
    } else {
      this.rows.delete(entry.k);
      this.rows.set(entry.k, { values: entry.v, at: entry.t });
      this.tombstones.delete(entry.k);
    }
  }

  private header(): string {
    return formatCsvRecord(this.columns);
  }

  private async append(text: string): Promise<void> {
    const size = await stat(this.path).then((s) => s.size, () => 0);
    const handle = await open(this.path, 'a');
    try {
      await handle.write(size === 0 ? this.header() + text : text);
      if (this.durable) await handle.datasync();
    } finally {
      await handle.close();
    }
  }

  private async rebuild(): Promise<void> {
    const temp = `${this.path}.tmp-${process.pid}`;
    const snapshot = this.stateVersion;
    const lines = [this.header(), ...[...this.rows.values()].map(({ values }) => formatCsvRecord(values))];
    const handle = await open(temp, 'w');
    try {
      await handle.write(lines.join(''));
      if (this.durable) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, this.path);
    if (this.durable) {
      const dir = await open(dirname(this.path), 'r');
      await dir.sync().catch(() => undefined);
      await dir.close();
    }
    this.fileVersion = snapshot;
  }

  /** A file written before this state existed: its header must match; its rows become state. */
  private async adoptExistingFile(): Promise<void> {
    const text = await readFile(this.path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '';
      throw error;
    });
    if (!text) return;
    const [header, ...records] = parseCsv(text);
    if (header && header.join(',') !== this.columns.join(',')) {
      throw new UnmappableDataError(`${this.path} has header ${header.join(',')}, the attachment wants ${this.columns.join(',')}`);
    }
    for (const values of records) {
      const key = values[this.keyColumn] ?? values[this.recordIdColumn] ?? '';
      const recordId = values[this.recordIdColumn];
      if (recordId) this.seen.add(recordId);
      this.rows.set(key, { values, at: '' });
    }
  }
}
