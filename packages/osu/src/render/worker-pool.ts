/**
 * Frame-drawing worker threads. Each worker prepares the same scene from the same
 * inputs, then draws the frames it is given; frames come back as transferred buffers
 * that the pool hands to the consumer strictly in order, then returns to the worker
 * for reuse. A few frames per worker are in flight at once.
 */
import { Worker } from 'node:worker_threads';
import type { PrepareArgs } from './prepare-scene.js';

export type WorkerInit = Omit<PrepareArgs, 'log'> & { startTime: number };

interface Slot {
  worker: Worker;
  inFlight: number;
  free: ArrayBuffer[];
}

const IN_FLIGHT = 2;

export class WorkerPool {
  private readonly slots: Slot[] = [];
  private readonly readyPromise: Promise<void>;
  private failure: Error | undefined;
  private onResult: ((i: number, buf: ArrayBuffer) => void) | undefined;

  constructor(count: number, init: WorkerInit) {
    const readies: Promise<void>[] = [];
    for (let k = 0; k < count; k++) {
      const worker = new Worker(new URL('./frame-worker-entry.mjs', import.meta.url), {
        workerData: init,
      });
      const slot: Slot = { worker, inFlight: 0, free: [] };
      this.slots.push(slot);
      readies.push(
        new Promise<void>((resolve, reject) => {
          worker.on(
            'message',
            (m: { type: string; i?: number; buf?: ArrayBuffer; error?: string }) => {
              if (m.type === 'ready') resolve();
              else if (m.type === 'frame') {
                slot.inFlight--;
                this.onResult?.(m.i!, m.buf!);
              } else if (m.type === 'error') {
                this.failure = new Error(`render worker: ${m.error}`);
                reject(this.failure);
                this.onResult?.(-1, new ArrayBuffer(0));
              }
            },
          );
          worker.on('error', (err) => {
            this.failure = err;
            reject(err);
            this.onResult?.(-1, new ArrayBuffer(0));
          });
        }),
      );
    }
    this.readyPromise = Promise.all(readies).then(() => undefined);
    this.readyPromise.catch(() => undefined);
  }

  ready(): Promise<void> {
    return this.readyPromise;
  }

  /** Draws frames 0..count-1, calling `consume` in frame order. */
  async render(
    count: number,
    consume: (i: number, data: Uint8Array) => Promise<void>,
  ): Promise<void> {
    const n = this.slots.length;
    const done = new Map<number, ArrayBuffer>();
    let next = 0; // next frame to hand out
    let written = 0;
    let wake: (() => void) | undefined;
    this.onResult = (i, buf) => {
      if (i >= 0) done.set(i, buf);
      const w = wake;
      wake = undefined;
      w?.();
    };
    const dispatch = (): void => {
      // frame i goes to worker i % n, so each worker draws in time order
      while (next < count) {
        const slot = this.slots[next % n]!;
        if (slot.inFlight >= IN_FLIGHT) break;
        slot.inFlight++;
        const buf = slot.free.pop();
        slot.worker.postMessage({ type: 'draw', i: next, buf }, buf ? [buf] : []);
        next++;
      }
    };
    dispatch();
    while (written < count) {
      if (this.failure) throw this.failure;
      const buf = done.get(written);
      if (!buf) {
        await new Promise<void>((r) => (wake = r));
        continue;
      }
      done.delete(written);
      await consume(written, new Uint8Array(buf));
      this.slots[written % n]!.free.push(buf);
      written++;
      dispatch();
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}
