/**
 * A new folder's cluster unpacked from the copy of a fresh one (`memory-template.ts`)
 * instead of made by initdb, most of a new embedded service's start-up CPU.
 *
 * The copy is unpacked under a marker file inside the folder. A start that finds the
 * marker (the process died while unpacking, or before the unpacked files were synced)
 * empties the folder and unpacks again, so a half-unpacked cluster is never opened as a
 * database. The marker is removed only after every file is synced, and its removal is
 * synced (the folder's fsync) before the first statement: a database that acknowledged
 * a write is never taken for a half-unpacked one. Only an empty folder (or one under the
 * marker) is unpacked into; anything else is left to PGlite as before.
 */
import { existsSync, readdirSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { syncPath } from '../../storage/sync-path.js';
import { freshClusterCopy } from './memory-template.js';

const MARKER = '.pglite-unpacking';

/**
 * The copy to unpack into `dataDir` (already created), with the marker written and
 * synced; undefined when the folder holds a cluster (or anything else) or no copy is at
 * hand, and PGlite opens the folder as before.
 */
export async function copyForNewFolder(dataDir: string): Promise<Blob | undefined> {
  const unpacking = existsSync(join(dataDir, MARKER));
  if (!unpacking && readdirSync(dataDir).length > 0) return undefined;
  const copy = await freshClusterCopy();
  if (unpacking) await emptyNewFolder(dataDir);
  if (!copy) {
    // Nothing to unpack (the folder is empty again): initdb, as without a copy.
    if (unpacking) await finishNewFolder(dataDir);
    return undefined;
  }
  if (!unpacking) {
    await writeFile(join(dataDir, MARKER), '', { flush: true });
    await syncPath(dataDir);
  }
  return copy;
}

/** After the unpacked files are synced: the marker removed, durably. */
export async function finishNewFolder(dataDir: string): Promise<void> {
  await rm(join(dataDir, MARKER), { force: true });
  await syncPath(dataDir);
}

/** The copy did not load: the folder emptied (marker kept) for initdb to run in. */
export async function emptyNewFolder(dataDir: string): Promise<void> {
  for (const name of readdirSync(dataDir))
    if (name !== MARKER) await rm(join(dataDir, name), { recursive: true, force: true });
}
