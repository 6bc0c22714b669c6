/**
 * The files a `memory://` PGlite database starts from: a fresh cluster, dumped right
 * after one initdb and loaded by every later database, in this process and in later ones
 * (a file in the temp folder, named by PGlite's version). initdb inside WASM is most of
 * the cost of a new instance: 3.8 s CPU for a process's first, 2.0 s for another, 0.6 s
 * to load the copy (CPU of the process, 2026-11-27 14:40 UTC, 2-core AMD EPYC, load 14);
 * tests open throw-away databases by the hundred. The copy is taken before any statement
 * of the caller, so every database still starts empty. A new folder starts from the same
 * copy when there is one (`new-folder.ts`: 1.0–1.4 s CPU against 3.6–3.8 s for initdb,
 * 28 Nov 10:00 UTC, 2-core AMD EPYC 2596 MHz, quiet), but never makes it: its durability
 * is its own (`wal-sync.ts`).
 *
 * The file is written under a unique name and renamed into place, so a reader sees a
 * whole copy or none; a copy that does not load is removed and initdb runs as before.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { open, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';

type ParserMap = Record<number, (value: string) => unknown>;

/** PGlite's version: a copy made by another version is never loaded. */
function pgliteVersion(): string {
  const entry = fileURLToPath(import.meta.resolve('@electric-sql/pglite'));
  const manifest = join(dirname(entry), '..', 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

let templateFile: string | undefined;
const fileOfTemplate = () =>
  (templateFile ??= join(tmpdir(), `pglite-memory-template-${pgliteVersion()}.tar`));

/** This process's copy, once it has one (read from the file, or dumped here). */
let template: Promise<Blob | undefined> | undefined;

/**
 * The copy in the temp folder, when this user made it and no one else can write it: a
 * folder database (the embedded default's, `npm start`) is unpacked from it, so a file
 * another local user planted or could change is never trusted. Checked on the open file,
 * so it cannot be swapped between the check and the read.
 */
async function readTemplate(): Promise<Blob | undefined> {
  const handle = await open(fileOfTemplate(), 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    const { uid, mode } = await handle.stat();
    if (uid !== process.getuid?.() || (mode & 0o022) !== 0) return undefined;
    return new Blob([await handle.readFile()]);
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

async function saveTemplate(pg: PGlite): Promise<Blob | undefined> {
  const dump = await pg.dumpDataDir('none').catch(() => undefined);
  if (!dump) return undefined;
  const file = fileOfTemplate();
  const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    // Only this user may write it (readTemplate trusts nothing else).
    await writeFile(partial, Buffer.from(await dump.arrayBuffer()), { mode: 0o600 });
    await rename(partial, file);
  } catch {
    // Without the file only later processes lose the shortcut (a failing disk: never throws).
    await rm(partial, { force: true }).catch(() => undefined);
  }
  return dump;
}

/**
 * The copy of a fresh cluster when one is at hand (this process's, or the file another
 * left), for a new folder to start from (`pglite-database.ts`); undefined otherwise, and
 * the folder then runs initdb itself.
 */
export function freshClusterCopy(): Promise<Blob | undefined> {
  // Not kept when this process has none yet: a service opens its folder once, and the
  // copy is 40 MB.
  return template ?? readTemplate();
}

/** The copy did not load: forgotten, and its file removed. */
export async function dropFreshClusterCopy(): Promise<void> {
  template = undefined;
  await rm(fileOfTemplate(), { force: true }).catch(() => undefined);
}

/**
 * A `memory://` database's pages are in memory already (Emscripten's MEMFS), so PostgreSQL's
 * buffer pool above them only copies them again: 16 MB instead of initdb's 128 MB, whose
 * set-up was a fourth of an open's CPU (1.8–1.9 s against 1.4 s, and 60–120 MB less memory
 * a database; 29 Nov 2026, 2-core AMD EPYC 2096 MHz). Folder databases keep 128 MB: there
 * the pool saves reads of the folder.
 */
const MEMORY_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

/** A new, empty `memory://` database. */
export async function openMemoryPglite(dataDir: string, parsers: ParserMap): Promise<PGlite> {
  template ??= readTemplate();
  const loadDataDir = await template;
  if (loadDataDir) {
    try {
      return await PGlite.create(dataDir, {
        parsers,
        loadDataDir,
        startParams: MEMORY_START_PARAMS,
      });
    } catch {
      // A copy that does not load (cut short, another build): made again below.
      await dropFreshClusterCopy();
    }
  }
  const pg = await PGlite.create(dataDir, { parsers, startParams: MEMORY_START_PARAMS });
  template = saveTemplate(pg);
  await template;
  return pg;
}
