/**
 * Makes PGlite's commits durable from Node (issue 21: acknowledge only what is durable).
 *
 * PGlite starts PostgreSQL with `-F` (fsync off) and its Emscripten build turns
 * `fdatasync` into a no-op (`___syscall_fdatasync` in `@electric-sql/pglite/dist`), so a
 * commit reaches only the page cache: a power loss can take commits already answered.
 * This module watches the WAL writes PGlite makes through Emscripten's NODEFS (a
 * `stream_ops.write` wrapper: one Set insert and a counter per write) and, when the
 * driver asks, fdatasyncs every WAL file written since the last sync through an fd of
 * its own (on Linux an fsync through any fd of a file flushes that file), plus the
 * `pg_wal` folder when a file there is new or renamed (a new segment's name must
 * survive too). The sync is a group commit: callers that ask while one is running
 * share the next one, and a caller whose writes an earlier sync already covered (a
 * read-only call: no WAL written) waits for nothing.
 *
 * After a call only the WAL is synced: it is what a commit's durability rests on (replay
 * rebuilds the data files from it). The whole folder is synced when an instance opens
 * and closes (`syncDataDir`). What this does not cover (PostgreSQL's own fsyncs at a
 * checkpoint in between stay off) is written down in packages/core's README.
 */
import { open, readdir, type FileHandle } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** Emscripten's file-system node: its name and folder (PGlite's `pg_wal` is a folder). */
interface EmscriptenNode {
  name: string;
  parent: EmscriptenNode;
}

/** The part of Emscripten's NODEFS this module hooks (the PGlite Module's `NODEFS`). */
export interface NodeFsInternals {
  stream_ops: { write: (stream: { node: EmscriptenNode }, ...rest: never[]) => number };
  realPath(node: EmscriptenNode): string;
}

/** A commit whose WAL could not be made durable: SQLSTATE 53100 / 58030, as a disk error. */
export class WalSyncFailed extends Error {
  readonly code: string;
  /** What `isUnsyncedCommit` (errors/in-doubt-write.ts) knows it by. */
  override readonly name = 'WalSyncFailed';
  constructor(
    file: string,
    override readonly cause: unknown,
  ) {
    const errno = (cause as { code?: unknown } | null)?.code;
    super(
      `PGlite's WAL could not be made durable: a sync of ${file} failed (${
        cause instanceof Error ? cause.message : String(cause)
      }); the last commit may or may not survive a power loss`,
    );
    this.code = errno === 'ENOSPC' || errno === 'EDQUOT' ? '53100' : '58030';
  }
}

const WAL_FOLDER = 'pg_wal';

interface OpenFile {
  handle: FileHandle;
  path: string;
}

export class WalSync {
  private readonly dataDir: string;
  private readonly walDir: string;
  /** WAL writes seen so far, and how many of them the last finished sync covered. */
  private written = 0;
  private synced = 0;
  private readonly dirty = new Set<EmscriptenNode>();
  /** Our own fd of each WAL file synced in the last round (the current segment stays open). */
  private files = new Map<EmscriptenNode, OpenFile>();
  private running: Promise<void> | undefined;
  private failure: WalSyncFailed | undefined;
  private realPath: ((node: EmscriptenNode) => string) | undefined;

  /**
   * @param dataDir PGlite's folder.
   * @param beforeSync A test's window: called with the files of each sync before it runs.
   */
  constructor(
    dataDir: string,
    private readonly beforeSync?: (files: readonly string[]) => Promise<void> | void,
  ) {
    this.dataDir = resolve(dataDir);
    this.walDir = join(this.dataDir, WAL_FOLDER);
  }

  /** Wraps NODEFS's write (once per PGlite instance, before PostgreSQL starts). */
  watch(nodefs: NodeFsInternals): void {
    const ops = nodefs.stream_ops;
    const write = ops.write;
    this.realPath = (node) => nodefs.realPath(node);
    ops.write = (stream, ...rest) => {
      const bytes = write.call(ops, stream, ...rest);
      if (stream.node.parent.name === WAL_FOLDER) {
        this.dirty.add(stream.node);
        this.written += 1;
      }
      return bytes;
    };
  }

  /** Whether `watch` ran: without it nothing could be synced, and the driver refuses to run. */
  get watching(): boolean {
    return this.realPath !== undefined;
  }

  /** Resolves once every WAL write made before this call is on disk; rejects if a sync failed. */
  async durable(): Promise<void> {
    const target = this.written;
    while (this.synced < target) {
      if (this.failure) throw this.failure;
      this.running ??= this.syncOnce().finally(() => (this.running = undefined));
      await this.running.catch(() => undefined);
    }
  }

  private async syncOnce(): Promise<void> {
    const upTo = this.written;
    const nodes = [...this.dirty];
    this.dirty.clear();
    const previous = this.files;
    const current = new Map<EmscriptenNode, OpenFile>();
    let folderChanged = false;
    let file = this.walDir;
    try {
      for (const node of nodes) {
        const path = this.realPath!(node);
        file = path;
        let known = previous.get(node);
        if (known && known.path !== path) folderChanged = true; // renamed (a recycled segment)
        if (!known) {
          const handle = await openIfPresent(path);
          if (!handle) continue; // written, then removed before this sync: nothing to keep
          known = { handle, path };
          folderChanged = true;
        }
        known.path = path;
        current.set(node, known);
      }
      await this.beforeSync?.([...current.values()].map((f) => f.path));
      await Promise.all(
        [...current.values()].map((f) => f.handle.datasync().catch(failedSync(f.path))),
      );
      if (folderChanged) {
        file = this.walDir;
        const folder = await open(this.walDir, 'r');
        try {
          await folder.sync();
        } finally {
          await folder.close();
        }
      }
      this.synced = upTo;
    } catch (error) {
      this.failure = error instanceof WalSyncFailed ? error : new WalSyncFailed(file, error);
      throw this.failure;
    } finally {
      // Files not written this round are closed; the ones written stay open for the next.
      for (const [node, f] of previous)
        if (current.get(node) !== f) await f.handle.close().catch(() => undefined);
      this.files = current;
    }
  }

  /**
   * Syncs every file and folder under PGlite's folder. At open, what the instance found
   * and replayed (commits of a killed process or of a retired instance that were never
   * synced, and the checkpoint ending the recovery) is durable before anything is
   * answered from it; at close, the shutdown checkpoint is (PostgreSQL's own fsyncs are
   * off: without this a power loss after a checkpoint could leave `pg_control` pointing
   * at WAL the checkpoint recycled).
   */
  async syncDataDir(): Promise<void> {
    const upTo = this.written;
    const covered = [...this.dirty];
    try {
      const files: string[] = [];
      const folders: string[] = [this.dataDir];
      for (const folder of folders)
        for (const entry of await readdir(folder, { withFileTypes: true }).catch(
          failedSync(folder),
        )) {
          const path = join(folder, entry.name);
          if (entry.isDirectory()) folders.push(path);
          else if (entry.isFile()) files.push(path);
        }
      // Files first, then the folders holding their names; a few at a time (libuv has 4 threads).
      for (const batch of [files, folders])
        for (let i = 0; i < batch.length; i += 16)
          await Promise.all(
            batch.slice(i, i + 16).map(async (path) => {
              const handle = await openIfPresent(path).catch(failedSync(path));
              if (!handle) return; // removed meanwhile (a temporary file)
              try {
                await (batch === files ? handle.datasync() : handle.sync()).catch(failedSync(path));
              } finally {
                await handle.close();
              }
            }),
          );
    } catch (error) {
      throw error instanceof WalSyncFailed ? error : new WalSyncFailed(this.dataDir, error);
    }
    for (const node of covered) this.dirty.delete(node);
    this.synced = Math.max(this.synced, upTo);
  }

  /** Closes this instance's own fds (when the driver closes or retires the instance). */
  async close(): Promise<void> {
    await this.running?.catch(() => undefined);
    for (const f of this.files.values()) await f.handle.close().catch(() => undefined);
    this.files.clear();
  }
}

/** Rethrows a sync's error naming the file it was about. */
const failedSync =
  (path: string) =>
  (error: unknown): never => {
    throw new WalSyncFailed(path, error);
  };

async function openIfPresent(path: string): Promise<FileHandle | undefined> {
  try {
    return await open(path, 'r');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
    throw error;
  }
}
