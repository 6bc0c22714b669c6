/**
 * One attachment's CSV file and its state (spec 6.4–6.5):
 * - a journal (`<state dir>/journal.jsonl`, see `journal.ts`) of every applied event,
 *   which is both the dedup store of recordIds and the keyed store of current rows and
 *   tombstones per natural key (held in memory by `CsvRows`, which decides each event);
 * - the file is always a view of that state (`CsvFileView`: creates append, updates and
 *   tombstones rebuild, never a torn file).
 *
 * Each event is decided at once against the in-memory state (dedup, stale, apply) and its
 * journal entry joins the next group commit, so events of several partitions share one
 * fsync; a partition's batch is decided as one step (`writeBatch`), all of it or none. A create is acknowledged once its entry is durable and its line is in the file;
 * an update or tombstone once its entry is durable (the file trails by at most a rebuild).
 *
 * Failures: a failed journal write makes the next event reload the state from the
 * journal on disk (what was not durable was not acknowledged and comes again); a failed
 * file write is retried, as a rebuild, before the next event is accepted, so the failure
 * reaches the retry policy. On open the file is rebuilt from the journal. The file is
 * locked for one writer.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  alreadyApplied,
  type AppliedPosition,
  type PositionSlot,
  type RecordPosition,
} from '../runtime/applied-position.js';
import { UnmappableDataError } from '../runtime/failures.js';
import { CsvFileView } from './csv-file-view.js';
import { CsvRows, type ApplyOutcome, type JournalEntry } from './csv-rows.js';
import { acquireFileLock, type FileLock } from './file-lock.js';
import { Journal } from './journal.js';
import { parseCsv } from '@platform/core';

/** When the journal is compacted (`CSV_JOURNAL_COMPACT_ENTRIES`) and what it keeps of the dedup store. */
export interface CsvCompaction {
  /** Entries the journal may hold beyond twice the live state (keys, tombstones, positions). @defaultValue 100000 */
  threshold: number;
  /**
   * recordIds kept as seen: every one within this many offsets below its partition's
   * position (a re-read there is decided by id), and of those without a position the
   * last this many entries'. @defaultValue 10000
   */
  keepRecent: number;
}

export const DEFAULT_COMPACTION: CsvCompaction = { threshold: 100_000, keepRecent: 10_000 };

/** One event for `writeBatch`: a create, or a change (an update, or a tombstone: `values` null). */
export interface CsvEvent {
  create: boolean;
  recordId: string;
  key: string;
  values: string[] | null;
  at: string;
  revision?: number | undefined;
  position?: RecordPosition | undefined;
}

/** What an event was, and what to await before acknowledging it. */
interface Decision {
  outcome: ApplyOutcome;
  durable?: Promise<unknown>;
}

export class CsvFile {
  private readonly state = new CsvRows();
  private readonly view: CsvFileView;
  private readonly journal: Journal<JournalEntry>;
  private lock: FileLock | undefined;
  /** Entries in the journal file (read at open, appended, or written by a compaction). */
  private journalEntries = 0;
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
    durable: boolean,
    private readonly compaction: CsvCompaction = DEFAULT_COMPACTION,
  ) {
    this.journal = new Journal(journalPath, durable);
    this.view = new CsvFileView(path, columns, this.state, durable);
  }

  async open(): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
    await mkdir(dirname(this.journal.path), { recursive: true });
    this.lock = await acquireFileLock(this.path);
    try {
      const entries = await this.journal.open();
      for (const entry of entries) this.state.replay(entry);
      this.journalEntries = entries.length;
      if (entries.length > 0) await this.view.rebuild();
      else await this.adoptExistingFile();
      this.view.version = this.state.version;
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  /** Whether the event is known; false while a failure leaves the state to be checked again. */
  has(recordId: string): boolean {
    return !this.journal.failed && !this.view.failed && this.state.has(recordId);
  }

  /**
   * Whether the event was applied (`alreadyApplied`: its record id is kept, or it sits
   * below the offset from which ids are kept); false while a failure leaves the state to
   * be checked again.
   */
  applied(recordId: string, position: RecordPosition | undefined): boolean {
    if (this.journal.failed || this.view.failed) return false;
    const keptFrom = position ? this.state.idsKeptFrom(position) : undefined;
    const event = { envelope: { recordId }, position };
    return alreadyApplied([event], (id) => this.state.has(id), keptFrom).size > 0;
  }

  /** Create: appends a line unless the state judges it a duplicate or stale (`CsvRows.judgeCreate`). */
  async create(
    recordId: string,
    key: string,
    values: string[],
    at: string,
    revision?: number,
    position?: RecordPosition,
  ): Promise<ApplyOutcome> {
    const [outcome] = await this.writeBatch([
      { create: true, recordId, key, values, at, revision, position },
    ]);
    return outcome!;
  }

  /** Update (values) or tombstone (null): keyed state, then a rebuild. Older events are ignored. */
  async change(
    recordId: string,
    key: string,
    values: string[] | null,
    at: string,
    revision?: number,
    position?: RecordPosition,
  ): Promise<ApplyOutcome> {
    const [outcome] = await this.writeBatch([
      { create: false, recordId, key, values, at, revision, position },
    ]);
    return outcome!;
  }

  /**
   * One partition's events in offset order, decided as one step: those already applied
   * (their record id kept, or below the offset from which ids are kept: `alreadyApplied`;
   * not merely below the stored position, which a broker that lost its tail can put past
   * records never seen) are duplicates, the others are decided in order and share the
   * journal's group commit. Either every event
   * is decided or, when settling an earlier failure throws first, none is: decided one by
   * one, a later event could be applied and its position stored past an earlier one that
   * was not, and the batch's redelivery then counted the earlier one as covered and
   * skipped it unwritten (found by the chaos run: an fsync failing during a file rebuild
   * lost an update from the csv file, seed 22).
   */
  async writeBatch(events: readonly CsvEvent[]): Promise<ApplyOutcome[]> {
    const decisions = await this.decide(() => {
      const slot = events.find((event) => event.position)?.position;
      const applied = alreadyApplied(
        events.map((event) => ({
          envelope: { recordId: event.recordId },
          position: event.position,
        })),
        (id) => this.state.has(id),
        slot ? this.state.idsKeptFrom(slot) : undefined,
      );
      return events.map((event, i): Decision =>
        applied.has(i)
          ? { outcome: 'duplicate' }
          : event.create
            ? this.decideCreate(event)
            : this.decideChange(event),
      );
    });
    await Promise.all(decisions.map((decision) => decision.durable));
    return decisions.map((decision) => decision.outcome);
  }

  private decideCreate(event: CsvEvent): Decision {
    const { recordId, key, values, at, revision, position } = event;
    const verdict = this.state.judgeCreate(recordId, key, at, revision);
    if (verdict === 'duplicate') return { outcome: 'duplicate' };
    if (verdict === 'stale')
      return { outcome: 'stale', durable: this.recordSeen(recordId, key, position) };
    const replaces = this.state.hasRow(key);
    const journaled = this.apply(entryOf(recordId, key, values, at, revision, position));
    if (replaces) {
      this.view.queueRebuild();
      return { outcome: 'written', durable: journaled };
    }
    this.view.queueAppend(this.state.line(key)!);
    return {
      outcome: 'written',
      durable: Promise.all([journaled, this.view.reaches(this.state.version)]),
    };
  }

  private decideChange(event: CsvEvent): Decision {
    const { recordId, key, values, at, revision, position } = event;
    const verdict = this.state.judgeChange(recordId, key, at, revision);
    if (verdict === 'duplicate') return { outcome: 'duplicate' };
    if (verdict === 'stale')
      return { outcome: 'stale', durable: this.recordSeen(recordId, key, position) };
    const journaled = this.apply(entryOf(recordId, key, values, at, revision, position));
    this.view.queueRebuild();
    return { outcome: 'written', durable: journaled };
  }

  /**
   * The position journaled last for a slot (offsets in the target); none while a failure
   * leaves the state to be checked again, as `has`. A failed journal write leaves the
   * state ahead of the disk: a position read then would mark the failed batch's records
   * as covered when it comes again, and they would be skipped unwritten (found by the
   * chaos run: an fsync failure lost a batch of creates from the csv file).
   */
  position(slot: PositionSlot): AppliedPosition | undefined {
    if (this.journal.failed || this.view.failed) return undefined;
    return this.state.position(slot);
  }

  rowsAsObjects(): Array<Record<string, string>> {
    return this.state.asObjects(this.columns);
  }

  /** Resolves once the file reflects every event applied so far (a pending rebuild starts now). */
  async flush(): Promise<void> {
    await this.view.flush();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.flush().catch(() => undefined);
    await this.journal.close();
    await this.view.close();
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
      if (this.view.failed) await this.flush();
      if (this.journalEntries > this.compaction.threshold + 2 * this.state.live)
        await this.compact();
      return decide();
    });
    this.decisions = run.catch(() => undefined);
    return run;
  }

  /**
   * Rewrites the journal with the last state per key, the positions and the recent
   * recordIds (`CsvRows.compact`); the file, a view of the same rows, does not change.
   */
  private async compact(): Promise<void> {
    const entries = this.state.compact(this.compaction.keepRecent);
    await this.journal.rewrite(entries);
    this.journalEntries = entries.length;
  }

  /** A stale event is still "seen", so a redelivery is a duplicate. */
  private recordSeen(recordId: string, key: string, position?: RecordPosition): Promise<void> {
    const entry: JournalEntry = { r: recordId, k: key, v: null, t: '', ...positionField(position) };
    this.state.replay(entry);
    this.journalEntries += 1;
    return this.journal.append(entry);
  }

  private apply(entry: JournalEntry): Promise<void> {
    this.state.replay(entry);
    this.journalEntries += 1;
    return this.journal.append(entry);
  }

  /** After a failed journal write: the state again as the journal on disk holds it. */
  private async reload(): Promise<void> {
    await this.view.settled();
    this.state.clear();
    const entries = await this.journal.open();
    for (const entry of entries) this.state.replay(entry);
    this.journalEntries = entries.length;
    this.view.reset(
      new Error(`csv file ${this.path}: state reloaded after a failed journal write`),
    );
    await this.flush();
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

function entryOf(
  recordId: string,
  key: string,
  values: string[] | null,
  at: string,
  revision: number | undefined,
  position: RecordPosition | undefined,
): JournalEntry {
  return {
    r: recordId,
    k: key,
    v: values,
    t: at,
    ...(revision === undefined ? {} : { n: revision }),
    ...positionField(position),
  };
}

const positionField = (position: RecordPosition | undefined): Pick<JournalEntry, 'o'> => {
  if (!position) return {};
  const { consumerGroup, topic, partition, offset, publishedAt } = position;
  return {
    o:
      publishedAt === undefined
        ? [consumerGroup, topic, partition, offset]
        : [consumerGroup, topic, partition, offset, publishedAt],
  };
};
