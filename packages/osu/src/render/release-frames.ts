/**
 * Frees read-back frames young. Each readback (`canvas.data()`) is a fresh block outside
 * V8's heap (8 MB at 1080p, 33 MB at 4k) that V8 counts as external memory, freed only
 * when a collection finds its Buffer dead. A young-generation collection once ~24 MB of
 * frames were handed on frees them as young objects (the caller drops its reference
 * first), so external memory stays flat and the canvas library's allocator reuses their
 * pages (README, Benchmarks).
 *
 * V8 offers that collection only as `gc`, which exists only when the process was started
 * with `--expose-gc` (the render service's start scripts and `bench:render` give it).
 * Without it, frames are left to V8. No V8 flag is changed here or anywhere at run time:
 * V8 does not support it, and switching `--incremental-marking` off and on around each
 * frame loop (what this file did until 27 Nov) crashed 3 of ~14 4k frame loops
 * (`Check failed: marking_state_->GreyToBlack`) when the switch met a marking under way.
 * Incremental marking, if it is to be off while frames are drawn, is a start flag of the
 * process that draws them (README, Decisions).
 */

type Gc = (options: { type: 'minor' }) => void;

/** Frame bytes between two young-generation collections: under V8's 64 MB external step. */
const BYTES_BETWEEN = 24 << 20;

/** `gc` when the process was started with `--expose-gc`. */
function startGc(): Gc | undefined {
  const gc = (globalThis as { gc?: unknown }).gc;
  return typeof gc === 'function' ? (gc as Gc) : undefined;
}

/** One frame loop's share: `released()` after each frame handed on. */
export class FrameRelease {
  private pending = 0;
  private readonly gc = startGc();

  /** Whether frames are collected young (false: the process has no `gc`, frames are left to V8). */
  get collecting(): boolean {
    return this.gc !== undefined;
  }

  /** After a frame's pixels were copied out and the caller dropped it: `bytes` of garbage. */
  released(bytes: number): void {
    if (!this.gc) return;
    this.pending += bytes;
    if (this.pending < BYTES_BETWEEN) return;
    this.pending = 0;
    this.gc({ type: 'minor' });
  }
}
