/**
 * Keeps V8's mark-compacts out of the frame loop. Each readback (`canvas.data()`) is a
 * fresh block outside V8's heap (8 MB at 1080p, 33 MB at 4k) that V8 counts as external
 * memory, freed only when a collection finds its Buffer dead; and a render's ~12 MB
 * heap sits near its old-generation limit, so V8 kept starting incremental marking
 * (`--trace-incremental-marking`: 58 of 68 starts on the allocation limit): at 4k a
 * mark-compact every 2-3 frames (README, Benchmarks). While frames are drawn:
 *
 * - a young-generation collection once ~24 MB of frames were handed on frees them as
 *   young objects (the caller drops its reference first), so external memory stays
 *   flat and the canvas library's allocator reuses their pages;
 * - incremental marking is off (`--no-incremental-marking`, read by V8 each time it
 *   would start one), so a mark-compact runs only when the old generation is really
 *   full: 54 -> 7 in 120 4k frames. It is process-wide, so it is switched back on when
 *   the last render's loop ends.
 *
 * V8 offers the young collection only with `--expose-gc`: the flag is set just long
 * enough to take `gc` from a fresh context (not the main one, so no global `gc`
 * appears). Where that fails, frames are left to V8 as before.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Gc = (options: { type: 'minor' }) => void;

/** Frame bytes between two young-generation collections: under V8's 64 MB external step. */
const BYTES_BETWEEN = 24 << 20;

let gc: Gc | null | undefined;
/** Frame loops running in this process (incremental marking is off while any runs). */
let active = 0;

function youngGc(): Gc | undefined {
  if (gc !== undefined) return gc ?? undefined;
  gc = (globalThis as { gc?: Gc }).gc ?? null;
  if (gc) return gc;
  try {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as Gc;
  } catch {
    gc = null;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
  return gc ?? undefined;
}

/** One frame loop's share: `open()` before the first frame, `close()` after the last. */
export class FrameRelease {
  private pending = 0;
  private readonly gc = youngGc();
  private opened = false;

  open(): void {
    if (this.opened || !this.gc) return;
    this.opened = true;
    if (active++ === 0) setFlagsFromString('--no-incremental-marking');
  }

  /** After a frame's pixels were copied out and the caller dropped it: `bytes` of garbage. */
  released(bytes: number): void {
    this.pending += bytes;
    if (this.pending < BYTES_BETWEEN || !this.gc) return;
    this.pending = 0;
    this.gc({ type: 'minor' });
  }

  close(): void {
    if (!this.opened) return;
    this.opened = false;
    if (--active === 0) setFlagsFromString('--incremental-marking');
  }
}
