/**
 * An append-only JSON-lines journal made durable by group commit: entries appended while
 * a write is in flight go out together in the next write and share one fdatasync, so the
 * partitions an adapter consumes at once pay for one sync between them instead of one
 * each. An append resolves once its entry is on disk.
 *
 * After a failed write the journal refuses every append until it is opened again: the
 * caller's in-memory state may then hold entries the disk does not, and reopening hands
 * back what the disk does hold, cut back to its last whole line (a short write on a full
 * disk leaves part of one, which the next append would otherwise be glued onto).
 */
import { open, readFile, rename, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { cutTornTail } from '../runtime/torn-tail.js';

interface PendingEntry {
  line: string;
  resolve(): void;
  reject(error: unknown): void;
}

export class Journal<Entry> {
  private handle: FileHandle | undefined;
  private pending: PendingEntry[] = [];
  /** The drain loop in flight; `draining` is cleared synchronously as it ends, so an append never finds a loop that will not pick it up. */
  private writing: Promise<void> = Promise.resolve();
  private draining = false;
  private failure: unknown;

  constructor(
    readonly path: string,
    private readonly durable: boolean,
  ) {}

  /** Opens the journal for appending and returns the entries on disk. */
  async open(): Promise<Entry[]> {
    await this.close();
    await cutTornTail(this.path);
    const text = await readFile(this.path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '';
      throw error;
    });
    const entries: Entry[] = [];
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        entries.push(JSON.parse(line) as Entry);
      } catch {
        // a torn last line from a crash: its event was never acknowledged and comes again
      }
    }
    this.handle = await open(this.path, 'a');
    this.failure = undefined;
    return entries;
  }

  /** True after a failed write, until the journal is opened again. */
  get failed(): boolean {
    return this.failure !== undefined;
  }

  append(entry: Entry): Promise<void> {
    if (!this.handle) return Promise.reject(new Error(`journal ${this.path} is closed`));
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ line: `${JSON.stringify(entry)}\n`, resolve, reject });
      if (!this.draining) this.writing = this.drain();
    });
  }

  /**
   * Replaces the journal with `entries` (a compaction): waits for the writes in flight,
   * writes a temp file, syncs it, renames it over the journal and syncs the folder, so a
   * crash leaves the old journal or the new one, never a mix. Appends made meanwhile go
   * to the new file.
   */
  async rewrite(entries: Entry[]): Promise<void> {
    await this.writing;
    const temp = `${this.path}.compacting`;
    const handle = await open(temp, 'w');
    try {
      await handle.writeFile(entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
      if (this.durable) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, this.path);
    if (this.durable) {
      const dir = await open(dirname(this.path), 'r');
      await dir.sync().catch(() => undefined);
      await dir.close();
    }
    await this.handle?.close().catch(() => undefined);
    this.handle = await open(this.path, 'a');
  }

  /** Waits for the writes in flight, then closes the file. */
  async close(): Promise<void> {
    await this.writing;
    await this.handle?.close().catch(() => undefined);
    this.handle = undefined;
  }

  private async drain(): Promise<void> {
    this.draining = true;
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0);
      try {
        // appendFile writes the whole text (a bare write may stop short on a large batch)
        await this.handle!.appendFile(batch.map((entry) => entry.line).join(''));
        if (this.durable) await this.handle!.datasync();
        for (const entry of batch) entry.resolve();
      } catch (error) {
        this.failure = error;
        for (const entry of [...batch, ...this.pending.splice(0)]) entry.reject(error);
      }
    }
    this.draining = false;
  }
}
