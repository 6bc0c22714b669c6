/**
 * Frames to ffmpeg through a named pipe written from libuv's thread pool, so that a
 * frame flows to ffmpeg while this thread draws the next one.
 *
 * Through ffmpeg's stdin (a socket pair, ~200 KB of buffer) a frame moved only while
 * the event loop was idle: each ~200 KB needs the main thread to write the next, and
 * the main thread spends a 4k frame inside synchronous calls (Skia's readback, the
 * conversion). The 12 MB of a 4k I420 frame therefore crossed during "waiting for
 * ffmpeg", which the frame loop paid on top of its own work (README, Benchmarks). Here
 * one blocking `write` a frame runs on a pool thread and sleeps until ffmpeg has read
 * it all, whatever the main thread does. Writes are chained, one at a time, so frames
 * never interleave and at most one pool thread waits on the pipe.
 */
import { spawnSync } from 'node:child_process';
import { close, closeSync, constants, mkdtempSync, open, openSync, rmSync, write } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface QueuedWrite {
  chunk: Uint8Array;
  settle: (err?: Error) => void;
}

export class FifoSink {
  readonly path: string;
  private readonly dir: string;
  /** The writing end once open; undefined before (and after a failed open). */
  private fd: number | undefined;
  private openError: Error | undefined;
  private writing = false;
  private readonly queue: QueuedWrite[] = [];
  /** end() or release() asked: close once the queue is written. */
  private closing = false;
  private closed = false;
  private readonly closedWaiters: (() => void)[] = [];

  /** A sink, or undefined where no named pipe can be made (no `mkfifo`): then stdin. */
  static tryCreate(): FifoSink | undefined {
    try {
      return new FifoSink();
    } catch {
      return undefined;
    }
  }

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'osu-frames-'));
    this.path = join(this.dir, 'frames.fifo');
    const made = spawnSync('mkfifo', ['-m', '600', this.path], { encoding: 'utf8' });
    if (made.status !== 0) {
      rmSync(this.dir, { recursive: true, force: true });
      throw new Error(`mkfifo failed: ${made.error?.message ?? made.stderr.trim()}`);
    }
  }

  /**
   * Starts the writer's open, once the reader (ffmpeg) is started: a blocking open on a
   * pool thread, which returns when ffmpeg opens its end (release() lets it through if
   * ffmpeg never does).
   */
  connect(): void {
    open(this.path, constants.O_WRONLY, (err, fd) => {
      if (err) this.openError = err;
      else this.fd = fd;
      this.pump();
    });
  }

  /** Queues `chunk` after the writes before it; resolves once ffmpeg has read it all. */
  write(chunk: Uint8Array): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ chunk, settle: (err) => (err ? reject(err) : resolve()) });
      this.pump();
    });
  }

  /** After the last write: closes the pipe (ffmpeg reads its end of input). */
  end(): Promise<void> {
    return new Promise((resolve) => {
      this.closedWaiters.push(resolve);
      this.closing = true;
      this.pump();
    });
  }

  /**
   * Once ffmpeg has exited: a writer still waiting to open the pipe (ffmpeg gone before
   * it opened its end) is let through by opening the reading end here for a moment, so
   * its writes then fail (no reader: EPIPE) instead of waiting for ever; a write already
   * under way fails the same way when the last reader goes. Then the descriptor is
   * closed and the pipe removed.
   */
  release(): void {
    try {
      closeSync(openSync(this.path, constants.O_RDONLY | constants.O_NONBLOCK));
    } catch {
      // removed already
    }
    this.closing = true;
    this.pump();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /**
   * Starts the next write when none is under way: called on each event (a write queued,
   * the open or a write done), so a frame is handed to the pool in the callback of the
   * one before it, without waiting for promise continuations.
   */
  private pump(): void {
    if (this.writing || this.closed) return;
    if (this.fd === undefined && this.openError === undefined) return;
    const next = this.queue.shift();
    if (next) {
      if (this.fd === undefined) {
        next.settle(this.openError);
        this.pump();
        return;
      }
      this.writing = true;
      writeAll(this.fd, next.chunk, 0, (err) => {
        this.writing = false;
        next.settle(err ?? undefined);
        this.pump();
      });
      return;
    }
    if (!this.closing) return;
    this.closed = true;
    const done = (): void => {
      for (const waiter of this.closedWaiters.splice(0)) waiter();
    };
    if (this.fd === undefined) done();
    else close(this.fd, done);
  }
}

/** Writes all of `chunk` (a blocking pipe takes it in one call; a signal may split it). */
function writeAll(
  fd: number,
  chunk: Uint8Array,
  offset: number,
  done: (err: Error | null) => void,
): void {
  write(fd, chunk, offset, chunk.byteLength - offset, null, (err, n) => {
    if (err || offset + n >= chunk.byteLength) done(err);
    else writeAll(fd, chunk, offset + n, done);
  });
}
