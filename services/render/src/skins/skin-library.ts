/**
 * Skins in object storage: each accepted archive is kept as `skins/<name>.osk`. The
 * built-in `Default` skin always exists and is never stored.
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ObjectNotFoundError, type ObjectStore, type SqlDatabase } from '@platform/core';
import { DEFAULT_SKIN } from './skin-name.js';
import { inspectSkinArchive, type SkinArchiveLimits } from './skin-archive.js';

export const SKIN_PREFIX = 'skins/';
export const skinKey = (name: string) => `${SKIN_PREFIX}${name}.osk`;

export async function listSkins(store: ObjectStore): Promise<string[]> {
  const names = (await store.list(SKIN_PREFIX))
    .map((key) => /^skins\/([^/]+)\.osk$/.exec(key)?.[1])
    .filter((name): name is string => name !== undefined && name !== DEFAULT_SKIN)
    .sort((a, b) => a.localeCompare(b));
  return [DEFAULT_SKIN, ...names];
}

/** Stores a checked archive unless the name is taken; false when it already exists. */
export async function saveSkin(
  db: SqlDatabase,
  store: ObjectStore,
  name: string,
  archivePath: string,
): Promise<boolean> {
  if (name.toLowerCase() === DEFAULT_SKIN.toLowerCase()) return false;
  // Two uploads of one name at once: the lock makes the exists-then-put a single step.
  return db.withAdvisoryLock(`render-skin:${name.toLowerCase()}`, async () => {
    const existing = await listSkins(store);
    if (existing.some((s) => s.toLowerCase() === name.toLowerCase())) return false;
    await store.put(skinKey(name), createReadStream(archivePath), {
      contentType: 'application/octet-stream',
    });
    return true;
  });
}

/**
 * Downloads a stored skin and extracts it (with every archive check) into `dir`;
 * false when no such skin is stored.
 */
export async function extractStoredSkin(
  store: ObjectStore,
  name: string,
  dir: string,
  limits: SkinArchiveLimits,
): Promise<boolean> {
  const temp = await mkdtemp(join(tmpdir(), 'render-skin-'));
  try {
    const source = await store.stream(skinKey(name)).catch((error: unknown) => {
      if (error instanceof ObjectNotFoundError) return undefined;
      throw error;
    });
    if (!source) return false;
    const archive = join(temp, 'skin.osk');
    await writeFile(archive, source);
    await inspectSkinArchive(archive, (await stat(archive)).size, limits, dir);
    return true;
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}
