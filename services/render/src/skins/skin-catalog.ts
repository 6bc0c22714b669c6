/**
 * Answers "is this skin stored?" at admission, so a job never names a skin the worker
 * cannot find. Skins are never overwritten, so a name once seen is remembered; an
 * unknown name costs one existence check on the store.
 */
import type { ObjectStore } from '@platform/core';
import { DEFAULT_SKIN } from './skin-name.js';
import { skinKey } from './skin-library.js';

export interface SkinCatalog {
  exists(name: string): Promise<boolean>;
  /** A skin this process just stored, or one removed (`false`). */
  remember(name: string, present: boolean): void;
}

export function createSkinCatalog(store: ObjectStore, maxRemembered = 10_000): SkinCatalog {
  const known = new Set<string>([DEFAULT_SKIN]);
  return {
    async exists(name) {
      if (known.has(name)) return true;
      if (!(await store.exists(skinKey(name)))) return false;
      if (known.size < maxRemembered) known.add(name);
      return true;
    },
    remember(name, present) {
      if (present) known.add(name);
      else if (name !== DEFAULT_SKIN) known.delete(name);
    },
  };
}
