/**
 * The webhook's durable state per attachment, in one append-only file: the recordIds
 * delivered (2xx) with their offsets, and the position per (consumer group, topic,
 * partition) — offsets in the target (`applied-position.ts`). One line per append, so a
 * batch's deliveries and the position after them are written together:
 *
 *   {"s":["<group>","<topic>",<partition>],"d":[["<recordId>",<offset>],…],"p":[["<group>","<topic>",<partition>,<next>,"<recordId>"]]}
 *
 * (A bare recordId line is a delivery recorded before positions existed; a rewritten
 * file's lines also carry `"f":<offset>`, below.) The recordIds decide what is a
 * duplicate (`applied-position.ts`, `alreadyApplied`), not the position: after a broker
 * lost its tail a record never delivered can sit below it. They are pruned by position:
 * those more than `keepPerPartition` offsets below their partition's position are
 * dropped, in memory and, by rewriting the file (temp file, rename), on disk — so
 * neither grows with the records ever delivered — and the partition's offset from which
 * every delivered id is kept (`idsKeptFrom`) rises to match; below it the position
 * vouches, so a batch re-read from far back is still not delivered again.
 *
 * The receiver also gets the recordId as `Idempotency-Key`, so a crash between its 2xx
 * and this record leaves it able to drop the repeat.
 */
import { appendFile, mkdir, open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { slotKey, type AppliedPosition, type PositionSlot } from '../runtime/applied-position.js';
import { cutTornTail } from '../runtime/torn-tail.js';

/** A delivery as recorded: its offset in its slot (undefined for lines of earlier releases). */
interface DeliveredEntry {
  slot: string;
  offset: number | undefined;
}

interface AttachmentState {
  delivered: Map<string, DeliveredEntry>;
  positions: Map<string, { slot: PositionSlot; position: AppliedPosition }>;
  /** Per slot, the offset from which every delivered recordId is kept (none: all are). */
  keptFrom: Map<string, number>;
  /** Entries (recordIds and positions) in the file, and after its last rewrite: when to rewrite it. */
  written: number;
  keptAtRewrite: number;
}

export interface Delivery {
  recordId: string;
  slot?: PositionSlot;
  offset?: number;
}

/** Slot, next offset, last record id, and when that publish was stored (absent in older files). */
type PositionTuple =
  [string, string, number, number, string] | [string, string, number, number, string, number];
type SlotTuple = [string, string, number];
interface Line {
  s?: SlotTuple;
  d?: Array<[string, number]>;
  p?: PositionTuple[];
  /** Written by a rewrite: the slot's offset from which every delivered recordId is kept. */
  f?: number;
}

/** What decides a duplicate for one attachment, read without waiting (`alreadyApplied`). */
export interface DeliveredView {
  has(recordId: string): boolean;
  idsKeptFrom(slot: PositionSlot): number | undefined;
}

/** Offsets kept below each position by default (`WEBHOOK_DELIVERED_KEEP`). */
export const DEFAULT_DELIVERED_KEEP = 10_000;

export class DeliveredStore {
  /** The load of each attachment's state, stored at once: overlapping first uses share it. */
  private readonly states = new Map<string, Promise<AttachmentState>>();
  /** Appends and rewrites of one attachment, one at a time. */
  private readonly writes = new Map<string, Promise<unknown>>();
  /** Files whose tail is a whole line: checked before this process's first append and after a failed one. */
  private readonly wholeTails = new Set<string>();

  constructor(
    private readonly dir: string,
    private readonly keepPerPartition = DEFAULT_DELIVERED_KEEP,
  ) {}

  private fileOf(attachmentId: string): string {
    return join(this.dir, `${attachmentId.replace(/[^A-Za-z0-9_-]/g, '_')}.delivered`);
  }

  private load(attachmentId: string): Promise<AttachmentState> {
    const cached = this.states.get(attachmentId);
    if (cached) return cached;
    const loading = readFile(this.fileOf(attachmentId), 'utf8')
      .catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return '';
        throw error;
      })
      .then((text) => {
        const state: AttachmentState = {
          delivered: new Map(),
          positions: new Map(),
          keptFrom: new Map(),
          written: 0,
          keptAtRewrite: 0,
        };
        for (const line of text.split('\n')) {
          if (!line) continue;
          if (!line.startsWith('{')) {
            state.delivered.set(line, { slot: '', offset: undefined });
            state.written += 1;
            continue;
          }
          try {
            applyLine(state, JSON.parse(line) as Line);
          } catch {
            // a torn last line from a crash: its deliveries were never acknowledged and come again
          }
        }
        this.prune(state);
        state.keptAtRewrite = state.delivered.size + state.positions.size;
        return state;
      });
    this.states.set(attachmentId, loading);
    // a failed load is forgotten, so the next use reads the file again
    loading.catch(
      () => this.states.get(attachmentId) === loading && this.states.delete(attachmentId),
    );
    return loading;
  }

  async has(attachmentId: string, recordId: string): Promise<boolean> {
    return (await this.load(attachmentId)).delivered.has(recordId);
  }

  /** The attachment's delivered ids and kept-from offsets as they are now. */
  async view(attachmentId: string): Promise<DeliveredView> {
    const state = await this.load(attachmentId);
    return {
      has: (recordId) => state.delivered.has(recordId),
      idsKeptFrom: (slot) => state.keptFrom.get(slotKey(slot)),
    };
  }

  async position(attachmentId: string, slot: PositionSlot): Promise<AppliedPosition | undefined> {
    return (await this.load(attachmentId)).positions.get(slotKey(slot))?.position;
  }

  async add(attachmentId: string, recordId: string): Promise<void> {
    await this.record(attachmentId, [{ recordId }], []);
  }

  /**
   * One append for a batch: what was delivered and the positions after it. Prunes (and
   * rewrites the file) once it holds twice what pruning keeps.
   */
  async record(
    attachmentId: string,
    deliveries: Delivery[],
    positions: Array<{ slot: PositionSlot; position: AppliedPosition }>,
  ): Promise<void> {
    if (deliveries.length === 0 && positions.length === 0) return;
    const state = await this.load(attachmentId);
    const slot = deliveries.find((x) => x.slot)?.slot ?? positions[0]?.slot;
    const line: Line = {
      ...(slot ? { s: [slot.consumerGroup, slot.topic, slot.partition] } : {}),
      d: deliveries.map((x) => [x.recordId, x.offset ?? -1]),
      p: positions.map(({ slot: at, position }) => positionTuple(at, position)),
    };
    await this.serialize(attachmentId, async () => {
      await this.append(this.fileOf(attachmentId), `${JSON.stringify(line)}\n`);
      applyLine(state, line);
      if (state.written > 2 * state.keptAtRewrite + this.keepPerPartition) {
        this.prune(state);
        await this.rewrite(attachmentId, state);
      }
    });
  }

  /**
   * Appends to a file of the folder, made on first need only: a mkdir before every batch's
   * append was a system call per batch for nothing (the folder is there after the first).
   */
  private async append(path: string, text: string): Promise<void> {
    if (!this.wholeTails.has(path)) {
      // A short write on a full disk (or a power loss) may have left part of a line.
      await cutTornTail(path);
      this.wholeTails.add(path);
    }
    try {
      await appendFile(path, text);
    } catch (error) {
      this.wholeTails.delete(path);
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await mkdir(this.dir, { recursive: true });
      await appendFile(path, text);
      this.wholeTails.add(path);
    }
  }

  /**
   * Drops recordIds more than `keepPerPartition` offsets below their slot's position, and
   * raises the slot's kept-from offset to that bound (never lowers it: a re-read moves
   * the position back, the ids dropped stay dropped).
   */
  private prune(state: AttachmentState): void {
    for (const [key, { position }] of state.positions) {
      const from = Math.max(position.nextOffset - this.keepPerPartition, 0);
      state.keptFrom.set(key, Math.max(from, state.keptFrom.get(key) ?? 0));
    }
    for (const [recordId, entry] of state.delivered) {
      if (entry.offset === undefined) continue;
      const from = state.keptFrom.get(entry.slot);
      if (from !== undefined && entry.offset < from) state.delivered.delete(recordId);
    }
  }

  /** The file again with what the state holds: temp file, fsync, rename. */
  private async rewrite(attachmentId: string, state: AttachmentState): Promise<void> {
    const file = this.fileOf(attachmentId);
    const slots = new Map([...state.positions].map(([key, value]) => [key, value.slot]));
    const lines: string[] = [];
    const legacy: string[] = [];
    const bySlot = new Map<string, Array<[string, number]>>();
    for (const [recordId, entry] of state.delivered) {
      if (entry.offset === undefined || !slots.has(entry.slot)) {
        legacy.push(recordId);
        continue;
      }
      // pushed in place: a copy per id made the rewrite quadratic in the ids kept
      const ids = bySlot.get(entry.slot);
      if (ids) ids.push([recordId, entry.offset]);
      else bySlot.set(entry.slot, [[recordId, entry.offset]]);
    }
    for (const [key, { slot, position }] of state.positions) {
      const entry: Line = {
        s: [slot.consumerGroup, slot.topic, slot.partition],
        d: bySlot.get(key) ?? [],
        p: [positionTuple(slot, position)],
        ...(state.keptFrom.has(key) ? { f: state.keptFrom.get(key)! } : {}),
      };
      lines.push(JSON.stringify(entry));
    }
    const text = [...legacy, ...lines].map((line) => `${line}\n`).join('');
    const temp = `${file}.tmp-${process.pid}`;
    const handle = await open(temp, 'w');
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
    state.written = state.keptAtRewrite = state.delivered.size + state.positions.size;
  }

  private serialize(attachmentId: string, work: () => Promise<void>): Promise<void> {
    const previous = this.writes.get(attachmentId) ?? Promise.resolve();
    const run = previous.then(work);
    this.writes.set(
      attachmentId,
      run.catch(() => undefined),
    );
    return run;
  }
}

function positionTuple(slot: PositionSlot, position: AppliedPosition): PositionTuple {
  const tuple: [string, string, number, number, string] = [
    slot.consumerGroup,
    slot.topic,
    slot.partition,
    position.nextOffset,
    position.lastRecordId,
  ];
  return position.lastPublishedAt === undefined ? tuple : [...tuple, position.lastPublishedAt];
}

function applyLine(state: AttachmentState, line: Line): void {
  const slotTuple = line.s ?? line.p?.[0];
  const slot = slotTuple ? slotKey(toSlot(slotTuple)) : '';
  for (const [recordId, offset] of line.d ?? [])
    state.delivered.set(recordId, { slot, offset: offset >= 0 && slot ? offset : undefined });
  if (line.f !== undefined && slot)
    state.keptFrom.set(slot, Math.max(line.f, state.keptFrom.get(slot) ?? 0));
  for (const tuple of line.p ?? []) {
    const slotOf = toSlot(tuple);
    state.positions.set(slotKey(slotOf), {
      slot: slotOf,
      position: {
        nextOffset: tuple[3],
        lastRecordId: tuple[4],
        ...(tuple[5] === undefined ? {} : { lastPublishedAt: tuple[5] }),
      },
    });
  }
  state.written += (line.d?.length ?? 0) + (line.p?.length ?? 0);
}

const toSlot = ([consumerGroup, topic, partition]: SlotTuple | PositionTuple): PositionSlot => ({
  consumerGroup,
  topic,
  partition,
});
