/**
 * Replay decoding kept off the event loop: files up to `inlineMaxBytes` (a typical
 * replay decodes in well under a millisecond) are decoded in place, larger ones on a
 * small pool of worker threads, started on first use. A decode running past
 * `timeoutMs` has its thread ended. `decode` rejects with `ReplayRejected` for a file
 * that does not decode (bad structure, truncated, LZMA bomb cut off, timeout).
 */
import { Worker } from 'node:worker_threads';
import { summarizeReplay, type ReplaySummary } from './replay-summary.js';

export interface ReplayDecoderOptions {
  /** Decode threads. @defaultValue 1 */
  threads: number;
  /** Larger files go to a thread. @defaultValue 32768 */
  inlineMaxBytes: number;
  /** @defaultValue 15000 */
  timeoutMs: number;
}

export class ReplayRejected extends Error {}

export interface ReplayDecoder {
  decode(bytes: Buffer): Promise<ReplaySummary>;
  close(): Promise<void>;
}

interface Pending {
  id: number;
  bytes: Uint8Array;
  resolve(summary: ReplaySummary): void;
  reject(error: Error): void;
}

interface Slot {
  worker: Worker;
  current: Pending | undefined;
  timer: NodeJS.Timeout | undefined;
}

const THREAD_URL = new URL('./decode-thread.ts', import.meta.url).href;

/** A thread that loads TypeScript the way this process does (tsx), then the entry. */
function spawnThread(): Worker {
  const tsx = import.meta.resolve('tsx/esm/api');
  const source = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(THREAD_URL)}); });`;
  const worker = new Worker(source, { eval: true });
  worker.unref();
  return worker;
}

export function createReplayDecoder(options: ReplayDecoderOptions): ReplayDecoder {
  const waiting: Pending[] = [];
  const slots: Slot[] = [];
  let nextId = 0;
  let closed = false;

  function finish(slot: Slot, outcome: { summary?: ReplaySummary; error?: Error }) {
    const job = slot.current;
    clearTimeout(slot.timer);
    slot.current = undefined;
    slot.timer = undefined;
    if (job) {
      if (outcome.error) job.reject(outcome.error);
      else job.resolve(outcome.summary!);
    }
    pump();
  }

  function startSlot(): Slot {
    const slot: Slot = { worker: spawnThread(), current: undefined, timer: undefined };
    slot.worker.on(
      'message',
      (message: { id: number; summary?: ReplaySummary; error?: string }) => {
        if (slot.current?.id !== message.id) return;
        finish(
          slot,
          message.error !== undefined
            ? { error: new ReplayRejected(message.error) }
            : { summary: message.summary! },
        );
      },
    );
    const lost = (reason: string) => {
      slots.splice(slots.indexOf(slot), 1);
      finish(slot, { error: new ReplayRejected(reason) });
    };
    slot.worker.on('error', (error) => lost(`decode thread failed: ${error.message}`));
    slot.worker.on('exit', () => {
      if (slots.includes(slot)) lost('decode thread ended');
    });
    slots.push(slot);
    return slot;
  }

  function pump() {
    while (waiting.length > 0 && !closed) {
      let slot = slots.find((s) => !s.current);
      if (!slot && slots.length < Math.max(1, options.threads)) slot = startSlot();
      if (!slot) return;
      const job = waiting.shift()!;
      slot.current = job;
      const chosen = slot;
      slot.timer = setTimeout(() => {
        slots.splice(slots.indexOf(chosen), 1);
        void chosen.worker.terminate();
        finish(chosen, { error: new ReplayRejected('decoding took too long') });
      }, options.timeoutMs);
      slot.worker.postMessage({ id: job.id, bytes: job.bytes });
    }
  }

  return {
    async decode(bytes) {
      if (bytes.length <= options.inlineMaxBytes) {
        try {
          return summarizeReplay(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length));
        } catch (error) {
          throw new ReplayRejected(error instanceof Error ? error.message : String(error));
        }
      }
      if (closed) throw new Error('the replay decoder is closed');
      return new Promise<ReplaySummary>((resolve, reject) => {
        waiting.push({ id: (nextId += 1), bytes: new Uint8Array(bytes), resolve, reject });
        pump();
      });
    },
    async close() {
      closed = true;
      for (const job of waiting.splice(0)) job.reject(new Error('the replay decoder is closed'));
      const all = slots.splice(0);
      for (const slot of all) finish(slot, { error: new Error('the replay decoder is closed') });
      await Promise.all(all.map((s) => s.worker.terminate()));
    },
  };
}
