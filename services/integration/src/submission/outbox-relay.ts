/**
 * The intake outbox's relay and reconciler (issue 21), one loop per submission process:
 *
 * - **relay**: publishes unsent events whose request could not finish them (its process
 *   died, or the database failed after the broker's ack), oldest first and one at a time
 *   per key, with the record id as de-duplication id; marks them sent after the ack.
 * - **reconciler**: every `reconcileIntervalMs`, asks the broker whether it still holds
 *   the events sent within `windowMs` at their offsets, and publishes again those it lost
 *   (a JetStream power loss drops acknowledged writes that were not fsynced; a purge or a
 *   deleted message too). Targets apply by revision, so a second copy is harmless.
 *   Events sent longer ago than the window are taken as durable and pruned.
 */
import type { Logger, SqlDatabase } from '@platform/core';
import type { Broker, PublishedRecord } from '../broker/broker.js';
import type { ContractCache } from './contract-cache.js';
import {
  markResent,
  markSent,
  pruneSent,
  recentlySent,
  unsentEntries,
  type OutboxEntry,
  type SentPosition,
} from './outbox.js';
import { publishEnvelope } from './publish-envelope.js';
import { SentSpanCache } from './sent-span-cache.js';

export interface OutboxSettings {
  /**
   * Pause between relay passes, which look for other processes' events past their lease;
   * an event of this process handed over by `strand` wakes it at once, also one handed
   * over while a pass runs. @defaultValue 1000
   */
  relayIntervalMs: number;
  /** Another process's unsent event is taken over when older than this. @defaultValue 15000 */
  leaseMs: number;
  /** @defaultValue 5000 */
  reconcileIntervalMs: number;
  /** Sent events younger than this are checked against the broker. @defaultValue 300000 */
  windowMs: number;
}

export const DEFAULT_OUTBOX_SETTINGS: OutboxSettings = {
  relayIntervalMs: 1000,
  leaseMs: 15_000,
  reconcileIntervalMs: 5000,
  windowMs: 300_000,
};

export interface OutboxRelayDeps {
  db: SqlDatabase;
  broker: Broker;
  logger: Logger;
  contracts: ContractCache;
  /** This process's owner id on its outbox rows. */
  owner: string;
  settings?: Partial<OutboxSettings>;
}

const BATCH = 500;
const RECONCILE_LIMIT = 200_000;

export interface PassResult {
  published: number;
  republished: number;
}

export class OutboxRelay {
  /** Events of this process whose request could not finish them. */
  readonly stranded = new Set<string>();
  private readonly settings: OutboxSettings;
  private running: Promise<void> | undefined;
  private stopped = false;
  private wake: (() => void) | undefined;
  /** Set by `strand`: the loop runs another pass before it sleeps. */
  private woken = false;
  private lastReconcile = 0;
  private readonly spans: SentSpanCache;

  constructor(private readonly deps: OutboxRelayDeps) {
    this.settings = { ...DEFAULT_OUTBOX_SETTINGS, ...deps.settings };
    this.spans = new SentSpanCache(this.settings.windowMs);
  }

  start(): void {
    this.running ??= this.loop();
  }

  /** Hands an event to the relay (its request could not finish it). */
  strand(recordIds: string[]): void {
    for (const id of recordIds) this.stranded.add(id);
    this.woken = true;
    this.wake?.();
  }

  async close(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.running;
  }

  /** One relay pass, and a reconcile when `reconcile` (tests call it directly). */
  async runOnce(reconcile = true): Promise<PassResult> {
    const published = await this.publishUnsent();
    const republished = reconcile ? await this.reconcile() : 0;
    return { published, republished };
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      this.woken = false;
      try {
        const due = Date.now() - this.lastReconcile >= this.settings.reconcileIntervalMs;
        const { published, republished } = await this.runOnce(due);
        if (due) {
          this.lastReconcile = Date.now();
          await pruneSent(this.deps.db, this.settings.windowMs);
        }
        if (published + republished > 0)
          this.deps.logger.info({ published, republished }, 'outbox relay published events');
      } catch (error) {
        this.deps.logger.warn({ err: error }, 'outbox relay pass failed; retrying');
      }
      if (this.stopped) break;
      // Handed an event while this pass ran (after it read what to publish): no sleep.
      if (this.woken) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.settings.relayIntervalMs);
        this.wake = () => (clearTimeout(timer), resolve());
      });
      this.wake = undefined;
    }
  }

  private async publishUnsent(): Promise<number> {
    const entries = await unsentEntries(
      this.deps.db,
      this.deps.owner,
      this.settings.leaseMs,
      [...this.stranded],
      BATCH,
    );
    if (entries.length === 0) return 0;
    const positions = await this.publishInKeyOrder(entries, (entry) => entry.dedupeId);
    // Queued any time ago (a dead process's, a failed request's): their window starts now.
    await markSent(this.deps.db, positions, true);
    for (const p of positions) this.stranded.delete(p.recordId);
    return positions.length;
  }

  /**
   * Asks the broker about each partition's span of the window's events first (one
   * question each, no envelope read); only a partition it cannot vouch for is read and
   * checked record by record. Reading every envelope of the window every few seconds
   * cost more than the intake itself once thousands of records a second came in; so did
   * summing the whole window's offsets every pass: the spans' settled part is kept
   * (`SentSpanCache`) and dropped after any pass that had to read a partition.
   */
  private async reconcile(): Promise<number> {
    const lost: OutboxEntry[] = [];
    let vouched = true;
    for (const span of await this.spans.spans(this.deps.db)) {
      // Two events at one offset: the broker lost its tail and gave the offset again.
      if (
        span.offsets === span.events &&
        (await this.deps.broker.holdsRange(
          span.topic,
          span.partition,
          span.fromOffset,
          span.toOffset,
        ))
      )
        continue;
      vouched = false;
      const entries = await recentlySent(
        this.deps.db,
        this.settings.windowMs,
        span,
        RECONCILE_LIMIT,
      );
      const records: PublishedRecord[] = entries.map((e) => ({
        offset: e.offset!,
        dedupeId: e.dedupeId,
      }));
      const missing = await this.deps.broker.missing(span.topic, span.partition, records);
      for (const entry of entries) if (missing.has(entry.dedupeId)) lost.push(entry);
    }
    // The broker could not vouch for a partition: what it lost moves to new offsets, and
    // a kept span may hold an offset given twice; the next pass sums the window afresh.
    if (!vouched) this.spans.clear();
    if (lost.length === 0) return 0;
    lost.sort((a, b) => a.seq - b.seq);
    this.deps.logger.warn(
      { lost: lost.length, recordIds: lost.slice(0, 20).map((e) => e.envelope.recordId) },
      'the broker lost acknowledged events; publishing them again from the outbox',
    );
    // A broker that still remembers the id of a record it lost answers "duplicate": that
    // record goes out again under a new id (targets de-duplicate by record id and revision).
    const positions = await this.publishInKeyOrder(lost, (entry) => entry.dedupeId, true);
    await markResent(this.deps.db, positions);
    return positions.length;
  }

  /**
   * Publishes entries one at a time per key in seq order, keys side by side; a key stops
   * at its first failure (its later events wait for the next pass). Returns the positions
   * of those acknowledged.
   */
  private async publishInKeyOrder(
    entries: OutboxEntry[],
    dedupeIdOf: (entry: OutboxEntry) => string,
    renewOnDuplicate = false,
  ): Promise<SentPosition[]> {
    const byKey = new Map<string, OutboxEntry[]>();
    for (const entry of entries) {
      const key = `${entry.envelope.contractId}\u0000${entry.envelope.naturalKey}`;
      byKey.set(key, [...(byKey.get(key) ?? []), entry]);
    }
    const positions: SentPosition[] = [];
    let firstError: unknown;
    await Promise.all(
      [...byKey.values()].map(async (chain) => {
        for (const entry of chain) {
          try {
            const contract = () => this.deps.contracts.get(entry.envelope.contractId);
            let dedupeId = dedupeIdOf(entry);
            let result = await publishEnvelope(
              this.deps.broker,
              contract,
              entry.topic,
              entry.envelope,
              dedupeId,
            );
            if (renewOnDuplicate && result.duplicate) {
              dedupeId = `${entry.envelope.recordId}~${Date.now().toString(36)}`;
              result = await publishEnvelope(
                this.deps.broker,
                contract,
                entry.topic,
                entry.envelope,
                dedupeId,
              );
            }
            positions.push({
              recordId: entry.envelope.recordId,
              partition: result.partition,
              offset: result.offset,
              dedupeId,
            });
          } catch (error) {
            firstError ??= error;
            return;
          }
        }
      }),
    );
    if (firstError && positions.length === 0) throw firstError;
    if (firstError)
      this.deps.logger.warn(
        { err: firstError },
        'outbox relay: some events wait for the next pass',
      );
    return positions;
  }
}
