/**
 * Per-attachment figures for the admin status and the console (issue 17): records
 * written, their rate over the last seconds, and the last failure of the target for that
 * attachment (a retried one too: an operator wants to see a target failing before its
 * records reach the dead letters). Kept in memory by the adapter process; a restart
 * starts them again, as the consumer's own figures do.
 */
import { overrideTarget, type AdapterTarget } from './adapter-target.js';
import { describeChain } from './failures.js';

/** Seconds the rate is averaged over: long enough to smooth batches, short enough to show a stop. */
export const RATE_WINDOW_SECONDS = 10;

export interface AttachmentFigures {
  written: number;
  /** Records written per second, averaged over the last RATE_WINDOW_SECONDS. */
  writtenPerSecond: number;
  lastWriteAt: string | null;
  failures: number;
  lastError: { message: string; at: string } | null;
}

interface Entry {
  written: number;
  /** Records written in each of the last seconds, keyed by the second (epoch seconds). */
  perSecond: Map<number, number>;
  lastWriteAt: number | null;
  failures: number;
  lastError: { message: string; at: number } | null;
}

export class AttachmentStats {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  private entry(attachmentId: string): Entry {
    let entry = this.entries.get(attachmentId);
    if (!entry) {
      entry = { written: 0, perSecond: new Map(), lastWriteAt: null, failures: 0, lastError: null };
      this.entries.set(attachmentId, entry);
    }
    return entry;
  }

  written(attachmentId: string, count = 1): void {
    if (count <= 0) return;
    const entry = this.entry(attachmentId);
    const now = this.now();
    const second = Math.floor(now / 1000);
    entry.written += count;
    entry.lastWriteAt = now;
    entry.perSecond.set(second, (entry.perSecond.get(second) ?? 0) + count);
    for (const key of entry.perSecond.keys())
      if (key <= second - RATE_WINDOW_SECONDS) entry.perSecond.delete(key);
  }

  failed(attachmentId: string, error: unknown): void {
    const entry = this.entry(attachmentId);
    entry.failures += 1;
    entry.lastError = { message: describeChain(error).slice(0, 500), at: this.now() };
  }

  /** Drops an attachment's figures (it was removed). */
  forget(attachmentId: string): void {
    this.entries.delete(attachmentId);
  }

  figures(attachmentId: string): AttachmentFigures {
    const entry = this.entries.get(attachmentId);
    if (!entry)
      return { written: 0, writtenPerSecond: 0, lastWriteAt: null, failures: 0, lastError: null };
    const second = Math.floor(this.now() / 1000);
    let recent = 0;
    for (const [key, count] of entry.perSecond)
      if (key > second - RATE_WINDOW_SECONDS) recent += count;
    const iso = (ms: number) => new Date(ms).toISOString();
    return {
      written: entry.written,
      writtenPerSecond: Math.round((recent / RATE_WINDOW_SECONDS) * 10) / 10,
      lastWriteAt: entry.lastWriteAt === null ? null : iso(entry.lastWriteAt),
      failures: entry.failures,
      lastError: entry.lastError && {
        message: entry.lastError.message,
        at: iso(entry.lastError.at),
      },
    };
  }
}

/** The target, observed: every write, batch and mapping of an attachment counts in `stats`. */
export function observeAttachments(target: AdapterTarget, stats: AttachmentStats): AdapterTarget {
  const watch = async <T>(attachmentId: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      stats.failed(attachmentId, error);
      throw error;
    }
  };
  return overrideTarget(target, {
    resolveMapping: (attachment) =>
      watch(attachment.attachmentId, () => target.resolveMapping(attachment)),
    write: (mapping, row, event) =>
      watch(event.attachment.attachmentId, async () => {
        const outcome = await target.write(mapping, row, event);
        if (outcome === 'written') stats.written(event.attachment.attachmentId);
        return outcome;
      }),
    writeBatch: target.writeBatch
      ? (mapping, events) =>
          // A batch holds one attachment's events (the pipeline groups them so).
          watch(events[0]!.attachment.attachmentId, async () => {
            const outcomes = await target.writeBatch!(mapping, events);
            stats.written(
              events[0]!.attachment.attachmentId,
              outcomes.filter((o) => o === 'written').length,
            );
            return outcomes;
          })
      : undefined,
  });
}
