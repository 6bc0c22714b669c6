/**
 * The keyed state of one attachment's CSV file (spec 6.4–6.5): the recordIds seen (the
 * dedup store), the current row and the tombstone per natural key, and the newest
 * revision per key. It decides what an event is — duplicate, stale or to apply — and
 * holds the rows the file is rebuilt from; it does no I/O (the journal makes it durable,
 * `CsvFileView` writes the file).
 */
import { slotKey, type AppliedPosition, type PositionSlot } from '../runtime/applied-position.js';
import { formatCsvRecord } from '@platform/core';

/** One applied or seen event as the journal keeps it (short names: one per line). */
export interface JournalEntry {
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
  /**
   * Where the event sat in the log: consumer group, topic, partition, offset (offsets in
   * the target), and when the broker stored that publish (`RecordPosition.publishedAt`;
   * absent in journals written before it was kept).
   */
  o?: [string, string, number, number] | [string, string, number, number, number];
  /**
   * On a compacted journal's position entry: the offset of its slot from which the
   * journal keeps every applied record id (`applied-position.ts`, `idsKeptFrom`).
   */
  f?: number;
}

export type ApplyOutcome = 'written' | 'duplicate' | 'stale';

/** What to do with an event: nothing (a duplicate), record it as seen (stale), or apply it. */
export type Verdict = 'duplicate' | 'stale' | 'apply';

/** A record id seen: its journal entry's number and where it sat in the log (slot key '' and -1 when unknown). */
interface Seen {
  entry: number;
  slot: string;
  offset: number;
}

interface Row {
  recordId: string;
  values: string[];
  at: string;
  /** The row formatted once, so a rebuild only joins lines. */
  line: string;
}

export class CsvRows {
  /** recordIds seen, each with its journal entry and offset (compaction keeps those near their slot's position). */
  private readonly seen = new Map<string, Seen>();
  /** Journal entries applied or read back. */
  entries = 0;
  private readonly rows = new Map<string, Row>();
  private readonly tombstones = new Map<string, string>();
  /** Newest revision applied per key (events that carry one are ordered by it, not by time). */
  private readonly revisions = new Map<string, number>();
  /** Position per (consumer group, topic, partition): the entry journaled last for it. */
  private readonly positions = new Map<string, AppliedPosition>();
  /** Per slot, the offset from which every applied record id is still in `seen` (none: all are). */
  private readonly keptFrom = new Map<string, number>();
  /** Events applied so far; the file view catches up to it. */
  version = 0;

  position(slot: PositionSlot): AppliedPosition | undefined {
    return this.positions.get(slotKey(slot));
  }

  has(recordId: string): boolean {
    return this.seen.has(recordId);
  }

  /** The offset of the slot from which every applied record id is kept (`alreadyApplied`). */
  idsKeptFrom(slot: PositionSlot): number | undefined {
    return this.keptFrom.get(slotKey(slot));
  }

  hasRow(key: string): boolean {
    return this.rows.has(key);
  }

  /** The formatted line of the key's current row. */
  line(key: string): string | undefined {
    return this.rows.get(key)?.line;
  }

  /** The rows' lines, in the order the file lists them. */
  *lines(): Iterable<string> {
    for (const row of this.rows.values()) yield row.line;
  }

  /**
   * Create: applied unless the key already holds a row or a newer tombstone. With a
   * revision: unless the key saw this revision or a newer one (then a re-create replaces
   * whatever the key holds).
   */
  judgeCreate(recordId: string, key: string, at: string, revision?: number): Verdict {
    if (this.seen.has(recordId)) return 'duplicate';
    if (revision === undefined) {
      const tombstone = this.tombstones.get(key);
      if (this.rows.has(key) || (tombstone !== undefined && tombstone > at)) return 'stale';
    } else if ((this.revisions.get(key) ?? 0) >= revision) return 'stale';
    return 'apply';
  }

  /** Update or tombstone: applied unless the key holds a newer event (by revision when it has one). */
  judgeChange(recordId: string, key: string, at: string, revision?: number): Verdict {
    if (this.seen.has(recordId)) return 'duplicate';
    const current = this.rows.get(key)?.at ?? this.tombstones.get(key);
    const stale =
      revision === undefined
        ? current !== undefined && current > at
        : (this.revisions.get(key) ?? 0) >= revision;
    return stale ? 'stale' : 'apply';
  }

  /** Applies a journal entry (a new event, or one read back from the journal). */
  replay(entry: JournalEntry): void {
    this.entries += 1;
    const slot = entry.o
      ? slotKey({ consumerGroup: entry.o[0], topic: entry.o[1], partition: entry.o[2] })
      : '';
    if (entry.r) this.seen.set(entry.r, { entry: this.entries, slot, offset: entry.o?.[3] ?? -1 });
    if (entry.o) {
      const [, , , offset, publishedAt] = entry.o;
      this.positions.set(slot, {
        nextOffset: offset + 1,
        lastRecordId: entry.r,
        ...(publishedAt === undefined ? {} : { lastPublishedAt: publishedAt }),
      });
      if (entry.f !== undefined)
        this.keptFrom.set(slot, Math.max(entry.f, this.keptFrom.get(slot) ?? 0));
    }
    if (entry.t === '' && entry.v === null) return;
    if (entry.n !== undefined)
      this.revisions.set(entry.k, Math.max(entry.n, this.revisions.get(entry.k) ?? 0));
    this.version += 1;
    this.rows.delete(entry.k);
    if (entry.v === null) this.tombstones.set(entry.k, entry.t);
    else {
      this.rows.set(entry.k, {
        recordId: entry.r,
        values: entry.v,
        at: entry.t,
        line: formatCsvRecord(entry.v),
      });
      this.tombstones.delete(entry.k);
    }
  }

  clear(): void {
    this.seen.clear();
    this.rows.clear();
    this.tombstones.clear();
    this.revisions.clear();
    this.positions.clear();
    this.keptFrom.clear();
    this.version = 0;
    this.entries = 0;
  }

  /** Keys, tombstones and positions: what a compacted journal cannot do without. */
  get live(): number {
    return this.rows.size + this.tombstones.size + this.positions.size;
  }

  /**
   * The journal compacted: per key its last state (tombstones first, then the rows in
   * the file's order, so a rebuild from it writes the same file), the record ids still
   * kept, then per slot its position and the offset from which ids are kept. Kept: every
   * id at an offset within `keep` below its slot's position (a re-read of that window,
   * after a broker lost its tail, is decided by id: `applied-position.ts`), and of ids
   * without a position those of the last `keep` entries. The in-memory dedup store is
   * pruned to the same; below the window the position vouches.
   */
  compact(keep: number): JournalEntry[] {
    const revision = (key: string) => {
      const n = this.revisions.get(key);
      return n === undefined ? {} : { n };
    };
    const slots = new Map(
      [...this.positions.keys()].map((key) => {
        const [consumerGroup, topic, partition] = key.split('\u0000');
        return [key, [consumerGroup!, topic!, Number(partition)] as const];
      }),
    );
    for (const [key, position] of this.positions)
      this.keptFrom.set(key, Math.max(position.nextOffset - keep, this.keptFrom.get(key) ?? 0));
    /** Where the record sat, so the id stays kept (and pruned) by offset after a reopen. */
    const placed = (recordId: string): Pick<JournalEntry, 'o'> => {
      const seen = this.seen.get(recordId);
      const slot = seen && slots.get(seen.slot);
      return slot && seen.offset >= 0 ? { o: [...slot, seen.offset] } : {};
    };
    const out: JournalEntry[] = [];
    const kept = new Set<string>();
    for (const [key, at] of this.tombstones)
      out.push({ r: '', k: key, v: null, t: at, ...revision(key) });
    for (const [key, row] of this.rows) {
      out.push({
        r: row.recordId,
        k: key,
        v: row.values,
        t: row.at,
        ...revision(key),
        ...placed(row.recordId),
      });
      kept.add(row.recordId);
    }
    for (const position of this.positions.values()) kept.add(position.lastRecordId);
    const floor = this.entries - keep;
    for (const [recordId, seen] of this.seen) {
      if (kept.has(recordId)) continue;
      const from = this.keptFrom.get(seen.slot);
      const old = seen.offset >= 0 && from !== undefined ? seen.offset < from : seen.entry <= floor;
      if (old) this.seen.delete(recordId);
      else out.push({ r: recordId, k: '', v: null, t: '', ...placed(recordId) });
    }
    // Last: replaying the entries above moved the positions; these set them back.
    for (const [key, position] of this.positions) {
      const slot = slots.get(key)!;
      out.push({
        r: position.lastRecordId,
        k: '',
        v: null,
        t: '',
        o:
          position.lastPublishedAt === undefined
            ? [...slot, position.nextOffset - 1]
            : [...slot, position.nextOffset - 1, position.lastPublishedAt],
        f: this.keptFrom.get(key)!,
      });
    }
    return out;
  }

  asObjects(columns: readonly string[]): Array<Record<string, string>> {
    return [...this.rows.values()].map(({ values }) =>
      Object.fromEntries(columns.map((c, i) => [c, values[i] ?? ''])),
    );
  }
}
