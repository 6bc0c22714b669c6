/**
 * The reconciler's spans of the window (issue 21) kept from pass to pass: buckets of
 * `window_at` that can no longer change are summed once and kept until they leave the
 * window; each pass reads only the buckets still open (`sentSpanBuckets`). A pass then
 * costs the events of the last few seconds, not the whole window's.
 *
 * A kept bucket goes stale when the reconciler publishes one of its events again (the
 * event moves to a new offset and a new `window_at`): `clear()` after any pass that
 * could not vouch for a partition, and the next pass reads the whole window again.
 *
 * Two events at one offset are counted within a bucket only, not across buckets. An
 * offset is given twice only after the broker lost its tail, which no broker does without
 * a restart that the reconciler sees otherwise: JetStream's `holdsRange` vouches for no
 * partition before it was checked record by record since the last reconnect; the SQL log
 * on PGlite loses its tail only with the process (and this cache); on PostgreSQL an
 * acknowledged append is fsynced.
 */
import type { SqlExecutor } from '@platform/core';
import { sentSpanBuckets, type SentSpan, type SentSpanBucket } from './outbox.js';

/** @defaultValue 10 s: a pass reads the last 10–20 s of events. */
export const SPAN_BUCKET_MS = 10_000;

export class SentSpanCache {
  /** Settled buckets by `topic\0partition\0bucketAt`. */
  private settled = new Map<string, SentSpanBucket>();
  /** Buckets from here on are read again; undefined: the whole window. */
  private fromMs: number | undefined;

  constructor(
    private readonly windowMs: number,
    private readonly bucketMs = SPAN_BUCKET_MS,
  ) {}

  clear(): void {
    this.settled.clear();
    this.fromMs = undefined;
  }

  /** Per partition, the span of the window's sent events (`SentSpan`). */
  async spans(db: SqlExecutor): Promise<SentSpan[]> {
    const { buckets, settledBefore } = await sentSpanBuckets(
      db,
      this.windowMs,
      this.bucketMs,
      this.fromMs,
    );
    const open: SentSpanBucket[] = [];
    for (const bucket of buckets) {
      if (bucket.bucketAt + this.bucketMs <= settledBefore)
        this.settled.set(`${bucket.topic}\0${bucket.partition}\0${bucket.bucketAt}`, bucket);
      else open.push(bucket);
    }
    const nextFrom = Math.floor(settledBefore / this.bucketMs) * this.bucketMs;
    // Never forward past a bucket not read yet (settledBefore may move back: a transaction
    // opened since, an event handed to the relay).
    this.fromMs = this.fromMs === undefined ? nextFrom : Math.max(this.fromMs, nextFrom);
    // Kept buckets that ended before the window's start are gone (pruned or about to be).
    // One that straddles it stays whole: a wider span than needed, never a narrower one.
    for (const [key, bucket] of this.settled)
      if (bucket.bucketAt + this.bucketMs <= settledBefore - this.windowMs)
        this.settled.delete(key);
    return merge([...this.settled.values(), ...open]);
  }
}

function merge(buckets: SentSpanBucket[]): SentSpan[] {
  const spans = new Map<string, SentSpan>();
  for (const b of buckets) {
    const key = `${b.topic}\0${b.partition}`;
    const span = spans.get(key);
    if (!span) {
      spans.set(key, {
        topic: b.topic,
        partition: b.partition,
        fromOffset: b.fromOffset,
        toOffset: b.toOffset,
        events: b.events,
        offsets: b.offsets,
      });
      continue;
    }
    span.fromOffset = Math.min(span.fromOffset, b.fromOffset);
    span.toOffset = Math.max(span.toOffset, b.toOffset);
    span.events += b.events;
    span.offsets += b.offsets;
  }
  return [...spans.values()];
}
