/**
 * The CSV file as a view of an attachment's state (spec 6.4–6.5): creates append their
 * lines (header written once, when the file is new); an update or tombstone rebuilds the
 * file from the state (temp file, fsync, rename, fsync of the folder, so a reader never
 * sees half a file).
 *
 * File work runs one step at a time behind the decisions and batches: the creates queued
 * meanwhile go out in one append, and rebuilds coalesce, waiting as long as the last one
 * took before starting the next (so a stream of updates spends at most about half its
 * time rebuilding, and the file trails the journal by that long, never torn). A failed
 * step is remembered until `flush` retries it as a rebuild.
 */
import { open, rename, stat, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { formatCsvRecord } from '@platform/core';

/** What the file shows: the state's version and its rows' lines. */
export interface CsvFileSource {
  readonly version: number;
  lines(): Iterable<string>;
}

interface FileWaiter {
  version: number;
  resolve(): void;
  reject(error: unknown): void;
}

/** Longest pause between two rebuilds, whatever the last one took. */
const MAX_REBUILD_PAUSE_MS = 1000;

export class CsvFileView {
  /** Version of the state the file reflects. */
  version = 0;
  /** Lines of the creates applied since `version`, or null when the next step must be a rebuild. */
  private appends: string[] | null = [];
  private readonly waiters: FileWaiter[] = [];
  private work: Promise<void> = Promise.resolve();
  private working = false;
  private error: unknown;
  private appendHandle: FileHandle | undefined;
  private lastRebuildMs = 0;
  private cutPause: (() => void) | undefined;

  constructor(
    readonly path: string,
    private readonly columns: readonly string[],
    private readonly source: CsvFileSource,
    private readonly durable: boolean,
  ) {}

  /** Whether the last file step failed (and no flush has retried it yet). */
  get failed(): boolean {
    return this.error !== undefined;
  }

  /** A create's line, to go out with the next append (unless a rebuild is due anyway). */
  queueAppend(line: string): void {
    this.appends?.push(line);
  }

  /** The state changed in a way only a rebuild shows; it starts (after its pause). */
  queueRebuild(): void {
    this.appends = null;
    this.start();
  }

  /** Resolves once the file holds version `version` of the state. */
  reaches(version: number): Promise<void> {
    if (this.version >= version) return Promise.resolve();
    const reached = new Promise<void>((resolve, reject) =>
      this.waiters.push({ version, resolve, reject }),
    );
    this.cutPause?.(); // someone waits: no more gathering
    this.start();
    return reached;
  }

  /** Resolves once the file reflects the whole state; a failed step is retried as a rebuild. */
  async flush(): Promise<void> {
    if (this.error !== undefined) {
      this.error = undefined;
      this.appends = null;
    }
    await this.reaches(this.source.version);
  }

  /** Once pending file work is over (the state may then be replaced). */
  async settled(): Promise<void> {
    await this.work;
  }

  /** The state was replaced: waiters fail with `reason`, and the next step rebuilds. */
  reset(reason: Error): void {
    this.appends = null;
    this.failWaiters(reason);
    this.version = 0;
  }

  /** Writes the whole file from the state, now. */
  async rebuild(): Promise<void> {
    const started = performance.now();
    const temp = `${this.path}.tmp-${process.pid}`;
    let text = this.header();
    for (const line of this.source.lines()) text += line;
    const handle = await open(temp, 'w');
    try {
      await handle.writeFile(text);
      if (this.durable) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, this.path);
    await this.closeAppendHandle(); // it holds the file the rename replaced
    if (this.durable) {
      const dir = await open(dirname(this.path), 'r');
      await dir.sync().catch(() => undefined);
      await dir.close();
    }
    this.lastRebuildMs = performance.now() - started;
  }

  async close(): Promise<void> {
    await this.closeAppendHandle();
  }

  private start(): void {
    if (!this.working && this.error === undefined) this.work = this.run();
  }

  /** Appends and rebuilds one at a time, each covering every event applied before it started. */
  private async run(): Promise<void> {
    this.working = true;
    try {
      while (this.version < this.source.version) {
        if (this.appends === null && this.waiters.length === 0) await this.pauseBeforeRebuild();
        const target = this.source.version;
        const appends = this.appends;
        this.appends = [];
        if (appends === null) await this.rebuild();
        else await this.append(appends.join(''));
        this.version = target;
        this.settleWaiters();
      }
    } catch (error) {
      // all at once, with no await: a flush arriving now must find the failure recorded
      this.error = error;
      this.appends = null;
      void this.closeAppendHandle();
      this.failWaiters(error);
    }
    this.working = false;
  }

  /** Lets updates gather while no one waits for the file: as long as the last rebuild took. */
  private async pauseBeforeRebuild(): Promise<void> {
    const pause = Math.min(this.lastRebuildMs, MAX_REBUILD_PAUSE_MS);
    if (pause === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, pause);
      timer.unref();
      this.cutPause = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.cutPause = undefined;
  }

  private settleWaiters(): void {
    for (let i = this.waiters.length - 1; i >= 0; i -= 1) {
      const waiter = this.waiters[i]!;
      if (waiter.version > this.version) continue;
      this.waiters.splice(i, 1);
      waiter.resolve();
    }
  }

  private failWaiters(error: unknown): void {
    for (const waiter of this.waiters.splice(0)) waiter.reject(error);
  }

  private header(): string {
    return formatCsvRecord(this.columns);
  }

  private async append(text: string): Promise<void> {
    if (!this.appendHandle) {
      const size = await stat(this.path).then(
        (s) => s.size,
        () => 0,
      );
      this.appendHandle = await open(this.path, 'a');
      if (size === 0) text = this.header() + text;
    }
    await this.appendHandle.appendFile(text);
    if (this.durable) await this.appendHandle.datasync();
  }

  private async closeAppendHandle(): Promise<void> {
    const handle = this.appendHandle;
    this.appendHandle = undefined;
    await handle?.close().catch(() => undefined);
  }
}
