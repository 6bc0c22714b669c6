/**
 * The integration bench's ledger: when each record of a phase was submitted and answered
 * (the load client's reports) and when each target showed it (the observer's landings),
 * and from these a phase's figures once its last record is in all three targets.
 *
 * It lives with the landing observer, on the observer's thread by default, and the load
 * client's thread reports to it directly (`landing-observer.ts`): on the platform's loop
 * this bookkeeping (a few map operations a record and a landing, and the messages that
 * carry them) was 4.4 % of the batch phase's main-thread profile, plus its share of the
 * garbage collector's (a `--cpu-prof` and a sampling heap profile, 28 Nov 2026 18:35 UTC).
 * Moving it changed no figure beyond the noise (three alternating pairs, 18:40 UTC: that
 * loop was idle a tenth of the batch phase, waiting on the relational target); it moved so
 * that the platform's profile shows the platform.
 *
 * Times are `clock()` readings: milliseconds every thread of the process reads alike.
 */
import type { AcceptedRecord } from './load-client.js';

export type Target = 'table' | 'file' | 'webhook';
/** A record seen in a target: its id, the target, when (`clock`). */
export type Landing = [recordId: string, target: Target, at: number];

/** What the ledger gives of a settled phase (the bench adds its CPU). */
export interface PhaseLandings {
  records: number;
  seconds: number;
  /** Records per second from the first submission until every record is in all three targets. */
  perSecond: number;
  submitPerSecond: number;
  latencyMs: { p50: number; p95: number; p99: number; max: number };
  /**
   * The submission's answer and each target's own latency (p50, p99: from the POST's start
   * until its 202 arrived, or the record was seen there), so a phase's latency can be traced
   * to the part that set it.
   */
  targetsMs: Record<'accepted' | Target, { p50: number; p99: number }>;
}

/** When the phase's clock started and when its submissions ended (`clock`). */
export interface PhaseTimes {
  startedAt: number;
  submittedAt: number;
}

interface PhaseRecords {
  /** Each record's POST start, by id. */
  started: Map<string, number>;
  /** Records of the phase seen in all three targets so far. */
  landed: number;
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export class LandingLedger {
  private readonly answered = new Map<string, number>();
  private readonly seenAt: Record<Target, Map<string, number>> = {
    table: new Map(),
    file: new Map(),
    webhook: new Map(),
  };
  private readonly phases = new Map<string, PhaseRecords>();
  /** Which phase each reported record belongs to. */
  private readonly phaseOf = new Map<string, PhaseRecords>();

  /** Records answered in `phase`; a landing seen before its answer was reported counts too. */
  accepted(phase: string, records: readonly AcceptedRecord[]): void {
    const entry = this.phase(phase);
    for (const [recordId, startedAt, answeredAt] of records) {
      entry.started.set(recordId, startedAt);
      this.answered.set(recordId, answeredAt);
      this.phaseOf.set(recordId, entry);
      if (this.inAll(recordId)) entry.landed += 1;
    }
  }

  /** Records seen in a target; only the first sighting of a record in a target counts. */
  landed(landings: readonly Landing[]): void {
    for (const [recordId, target, at] of landings) {
      const times = this.seenAt[target];
      if (times.has(recordId)) continue;
      times.set(recordId, at);
      const entry = this.phaseOf.get(recordId);
      if (entry && this.inAll(recordId)) entry.landed += 1;
    }
  }

  /** True once `expected` records of `phase` were reported and every one is in all three targets. */
  settled(phase: string, expected: number): boolean {
    const entry = this.phase(phase);
    return entry.started.size >= expected && entry.landed >= entry.started.size;
  }

  /** Where a phase stands, for an error: how many of its records each target holds. */
  describe(phase: string): string {
    const { started } = this.phase(phase);
    const count = (target: Target) =>
      [...started.keys()].filter((id) => this.seenAt[target].has(id)).length;
    return (
      `of ${started.size}, ${count('table')} in the table, ${count('file')} in the file, ` +
      `${count('webhook')} at the webhook`
    );
  }

  /** A settled phase's figures. */
  figures(phase: string, times: PhaseTimes): PhaseLandings {
    const { started } = this.phase(phase);
    const landedAt = (id: string) =>
      Math.max(this.seenAt.table.get(id)!, this.seenAt.file.get(id)!, this.seenAt.webhook.get(id)!);
    const sortedLatencies = (at: (id: string) => number) =>
      [...started].map(([id, t0]) => at(id) - t0).sort((a, b) => a - b);
    const targetLatency = (seen: Map<string, number>) => {
      const sorted = sortedLatencies((id) => seen.get(id)!);
      return {
        p50: Math.round(percentile(sorted, 50)),
        p99: Math.round(percentile(sorted, 99)),
      };
    };
    const latencies = sortedLatencies(landedAt);
    let last = -Infinity;
    for (const id of started.keys()) last = Math.max(last, landedAt(id));
    const seconds = (last - times.startedAt) / 1000;
    return {
      records: started.size,
      seconds: Math.round(seconds * 100) / 100,
      perSecond: Math.round(started.size / seconds),
      submitPerSecond: Math.round(started.size / ((times.submittedAt - times.startedAt) / 1000)),
      targetsMs: {
        accepted: targetLatency(this.answered),
        table: targetLatency(this.seenAt.table),
        file: targetLatency(this.seenAt.file),
        webhook: targetLatency(this.seenAt.webhook),
      },
      latencyMs: {
        p50: Math.round(percentile(latencies, 50)),
        p95: Math.round(percentile(latencies, 95)),
        p99: Math.round(percentile(latencies, 99)),
        max: Math.round(latencies.at(-1)!),
      },
    };
  }

  private phase(name: string): PhaseRecords {
    let entry = this.phases.get(name);
    if (!entry) this.phases.set(name, (entry = { started: new Map(), landed: 0 }));
    return entry;
  }

  private inAll(recordId: string): boolean {
    return (
      this.answered.has(recordId) &&
      this.seenAt.table.has(recordId) &&
      this.seenAt.file.has(recordId) &&
      this.seenAt.webhook.has(recordId)
    );
  }
}
