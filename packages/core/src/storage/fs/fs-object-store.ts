/**
 * Filesystem object store: objects are plain files under a root folder.
 *
 * Layout under `root`:
 * - `objects/<key>`: the bytes, one file per key;
 * - `meta/<key>`: a JSON sidecar `{"contentType": "..."}` mirroring the same tree, so a
 *   key can never collide with another key's sidecar;
 * - `tmp/`: uploads in progress, renamed into place when complete (atomic put).
 *
 * A put is atomic (whole or absent after a crash) but not durable unless asked
 * (`durable: true`): then the file is fsynced before its rename and the folder holding
 * its new name after it (every folder made for it too, and once per store the root's
 * own entries), so it survives a power loss once `put` resolves. A failed sync fails the
 * put (EIO / ENOSPC: a disk failure) and the object is removed again.
 *
 * A key and a key below it (`a` and `a/b`) cannot both exist, as on any filesystem.
 * Signed URLs are `${publicBaseUrl}${routePrefix}/${encodedKey}?expires=<unix s>&signature=<hex>`,
 * the signature being HMAC-SHA256 of `key + "\n" + expires`; `registerSignedObjectRoute`
 * serves them. The download is served with the stored content type.
 */
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import {
  access,
  mkdir,
  open,
  readFile,
  readdir,
  rename,
  rm,
  rmdir,
  stat,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { constants } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DEFAULT_CONTENT_TYPE, DEFAULT_SIGNED_URL_EXPIRES_SECONDS } from '../object-defaults.js';
import { syncPath } from '../sync-path.js';
import { assertValidObjectKey, assertValidObjectPrefix } from '../object-key.js';
import {
  ObjectNotFoundError,
  type ObjectBody,
  type ObjectStore,
  type PutOptions,
  type SignedUrlOptions,
} from '../object-store.js';
import type { ByteRange, OpenedObject, SignedObjectServer } from '../signed-object-server.js';

export interface FsStoreOptions {
  /** Folder holding the objects (created when missing). @defaultValue `./data/objects` */
  root?: string;
  /**
   * Secret of the HMAC that signs URLs. Give the same secret to every instance that
   * serves the same root. @defaultValue 32 random bytes per store (URLs die with the process)
   */
  signingSecret?: string | Buffer;
  /** Origin put before signed paths, such as `https://render.example.com`. @defaultValue `''` (relative URLs) */
  publicBaseUrl?: string;
  /** Path the signed-object route is mounted at. @defaultValue `/_objects` */
  routePrefix?: string;
}

export const DEFAULT_SIGNED_ROUTE_PREFIX = '/_objects';
// ENAMETOOLONG: a key longer than the file system allows cannot have been stored.
const NOT_FOUND_CODES = new Set(['ENOENT', 'ENOTDIR', 'EISDIR', 'ENAMETOOLONG']);

function isNotFound(error: unknown): boolean {
  return NOT_FOUND_CODES.has((error as NodeJS.ErrnoException | undefined)?.code ?? '');
}

/** Percent-encodes each segment of a key, keeping the slashes. */
export function encodeObjectKey(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}

function normalizeRoutePrefix(prefix: string): string {
  const trimmed = prefix.replace(/\/+$/, '');
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

export class FsObjectStore implements ObjectStore, SignedObjectServer {
  readonly driver = 'fs';
  readonly signedRoutePrefix: string;
  readonly #objectsDir: string;
  readonly #metaDir: string;
  readonly #tmpDir: string;
  readonly #secret: Buffer;
  readonly #publicBaseUrl: string;
  #ready: Promise<void> | undefined;
  #rootSynced: Promise<void> | undefined;

  constructor(options: FsStoreOptions = {}) {
    const root = resolve(options.root ?? './data/objects');
    this.#objectsDir = join(root, 'objects');
    this.#metaDir = join(root, 'meta');
    this.#tmpDir = join(root, 'tmp');
    this.#secret =
      options.signingSecret === undefined ? randomBytes(32) : Buffer.from(options.signingSecret);
    this.#publicBaseUrl = (options.publicBaseUrl ?? '').replace(/\/+$/, '');
    this.signedRoutePrefix = normalizeRoutePrefix(
      options.routePrefix ?? DEFAULT_SIGNED_ROUTE_PREFIX,
    );
  }

  async put(key: string, body: ObjectBody, options: PutOptions = {}): Promise<void> {
    assertValidObjectKey(key);
    await this.#ensureDirs();
    const contentType = options.contentType ?? DEFAULT_CONTENT_TYPE;
    const durable = options.durable === true;
    if (durable) await this.#syncRoot();
    const metaPath = join(this.#metaDir, key);
    const objectTemp = await this.#writeTemp(body, durable);
    // The default type has no sidecar (a missing one reads as the default): a put of it
    // writes one file, not two — the files are most of a small put's cost (replays).
    const sidecar = contentType !== DEFAULT_CONTENT_TYPE;
    try {
      // Sidecar first: once the new bytes are visible under the key, their type is too.
      if (sidecar)
        await this.#commit(
          await this.#writeTemp(JSON.stringify({ contentType }), durable),
          metaPath,
          durable,
        );
      else await this.#removeSidecar(metaPath);
    } catch (error) {
      await rm(objectTemp, { force: true });
      throw error;
    }
    try {
      await this.#commit(objectTemp, join(this.#objectsDir, key), durable);
    } catch (error) {
      // No sidecar is left without its object: one would block a later put of a key
      // above it (a folder where that key's sidecar must go).
      if (sidecar)
        await this.#removeSidecar(metaPath)
          .then(() => this.#pruneEmptyParents(this.#metaDir, key))
          .catch(() => undefined);
      throw error;
    }
  }

  async get(key: string): Promise<Buffer> {
    assertValidObjectKey(key);
    try {
      return await readFile(join(this.#objectsDir, key));
    } catch (error) {
      if (isNotFound(error)) throw new ObjectNotFoundError(key);
      throw error;
    }
  }

  async stream(key: string): Promise<Readable> {
    return (await this.openObject(key)).createReadStream();
  }

  async exists(key: string): Promise<boolean> {
    assertValidObjectKey(key);
    try {
      return (await stat(join(this.#objectsDir, key))).isFile();
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    assertValidObjectKey(key);
    await rm(join(this.#objectsDir, key), { force: true });
    await this.#removeSidecar(join(this.#metaDir, key));
    await this.#pruneEmptyParents(this.#objectsDir, key);
    await this.#pruneEmptyParents(this.#metaDir, key);
  }

  async list(prefix: string): Promise<string[]> {
    assertValidObjectPrefix(prefix);
    // Walk only the deepest folder the prefix names entirely.
    const base = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/') + 1) : '';
    const keys: string[] = [];
    await this.#walk(join(this.#objectsDir, base), base, keys);
    return keys.filter((key) => key.startsWith(prefix)).sort();
  }

  async signedUrl(key: string, options: SignedUrlOptions = {}): Promise<string> {
    assertValidObjectKey(key);
    const expiresIn = options.expiresInSeconds ?? DEFAULT_SIGNED_URL_EXPIRES_SECONDS;
    const expires = Math.floor(Date.now() / 1000) + Math.ceil(expiresIn);
    const signature = this.#sign(key, String(expires));
    const query = `expires=${expires}&signature=${signature}`;
    return `${this.#publicBaseUrl}${this.signedRoutePrefix}/${encodeObjectKey(key)}?${query}`;
  }

  verifySignature(key: string, expires: string | number, signature: string): boolean {
    const expiresText = String(expires);
    if (!/^\d{1,12}$/.test(expiresText) || typeof signature !== 'string') return false;
    if (Number(expiresText) * 1000 < Date.now()) return false;
    const expected = Buffer.from(this.#sign(key, expiresText), 'utf8');
    const given = Buffer.from(signature, 'utf8');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  async openObject(key: string): Promise<OpenedObject> {
    assertValidObjectKey(key);
    let handle;
    try {
      handle = await open(join(this.#objectsDir, key), 'r');
    } catch (error) {
      if (isNotFound(error)) throw new ObjectNotFoundError(key);
      throw error;
    }
    const fileHandle = handle;
    const info = await fileHandle.stat();
    if (!info.isFile()) {
      await fileHandle.close();
      throw new ObjectNotFoundError(key);
    }
    const contentType = await this.#readContentType(key);
    return {
      size: info.size,
      contentType,
      createReadStream: (range?: ByteRange) =>
        fileHandle.createReadStream(range ? { start: range.start, end: range.end } : {}),
      close: () => fileHandle.close(),
    };
  }

  /**
   * Readable and writable, and a write can be made durable: a probe file in `tmp/` is
   * written and fsynced (a full or failing disk fails it: `/health` says storage is down,
   * as the durable puts it answers for would fail).
   */
  async ping(): Promise<void> {
    await this.#ensureDirs();
    await access(this.#objectsDir, constants.R_OK | constants.W_OK);
    const probe = join(this.#tmpDir, `ping-${randomUUID()}`);
    try {
      await writeFile(probe, 'ping', { flag: 'wx' });
      await syncPath(probe);
    } finally {
      await rm(probe, { force: true });
    }
  }

  async close(): Promise<void> {}

  #sign(key: string, expires: string): string {
    return createHmac('sha256', this.#secret).update(`${key}\n${expires}`).digest('hex');
  }

  #ensureDirs(): Promise<void> {
    this.#ready ??= Promise.all(
      [this.#objectsDir, this.#metaDir, this.#tmpDir].map((dir) => mkdir(dir, { recursive: true })),
    ).then(
      () => undefined,
      (error: unknown) => {
        this.#ready = undefined;
        throw error;
      },
    );
    return this.#ready;
  }

  /** The root's own entries (objects/, meta/, tmp/, and the root in its parent), once per store. */
  #syncRoot(): Promise<void> {
    this.#rootSynced ??= (async () => {
      const root = dirname(this.#objectsDir);
      await syncPath(root);
      await syncPath(dirname(root));
    })().catch((error: unknown) => {
      this.#rootSynced = undefined;
      throw error;
    });
    return this.#rootSynced;
  }

  /** Writes the body to a new file under `tmp/` (fsynced when durable) and returns its path. */
  async #writeTemp(body: ObjectBody, durable = false): Promise<string> {
    const temp = join(this.#tmpDir, randomUUID());
    try {
      if (body instanceof Readable) {
        await pipeline(body, createWriteStream(temp, { flags: 'wx' }));
      } else {
        await writeFile(temp, body, { flag: 'wx' });
      }
      if (durable) await syncPath(temp);
      return temp;
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  /**
   * Renames a temp file over `target` (atomic on one filesystem); removes it on failure.
   * The rename is tried first: the folder is there for every put but the first under it,
   * so it is made (mkdir) only when the rename says it is missing — also when a concurrent
   * delete pruned it in between.
   */
  async #commit(temp: string, target: string, durable = false): Promise<void> {
    /** The highest folder a mkdir here made: its entry and those below it are new too. */
    let made: string | undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        await rename(temp, target);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 2) {
          await rm(temp, { force: true });
          throw error;
        }
      }
      try {
        made = (await mkdir(dirname(target), { recursive: true })) ?? made;
      } catch (error) {
        await rm(temp, { force: true });
        throw error;
      }
    }
    if (!durable) return;
    // The new name, then the new folders' names, each in the folder holding it.
    const folders = [dirname(target)];
    if (made)
      while (folders.at(-1) !== dirname(made) && folders.at(-1) !== dirname(folders.at(-1)!))
        folders.push(dirname(folders.at(-1)!));
    try {
      for (const folder of folders) await syncPath(folder);
    } catch (error) {
      // Visible but not durable: removed, so the failed put leaves nothing behind.
      await rm(target, { force: true }).catch(() => undefined);
      throw error;
    }
  }

  /** Removes a key's sidecar; none there (or a folder of keys below it) is fine. */
  async #removeSidecar(metaPath: string): Promise<void> {
    try {
      await unlink(metaPath);
    } catch (error) {
      if (!isNotFound(error) && (error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
    }
  }

  async #readContentType(key: string): Promise<string> {
    try {
      const meta = JSON.parse(await readFile(join(this.#metaDir, key), 'utf8')) as {
        contentType?: unknown;
      };
      return typeof meta.contentType === 'string' ? meta.contentType : DEFAULT_CONTENT_TYPE;
    } catch {
      return DEFAULT_CONTENT_TYPE;
    }
  }

  async #pruneEmptyParents(base: string, key: string): Promise<void> {
    const segments = key.split('/').slice(0, -1);
    while (segments.length > 0) {
      try {
        await rmdir(join(base, ...segments));
      } catch {
        return;
      }
      segments.pop();
    }
  }

  async #walk(dir: string, keyPrefix: string, into: string[]): Promise<void> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if (isNotFound(error)) return;
      throw error;
    }
    for (const entry of entries) {
      const key = `${keyPrefix}${entry.name}`;
      if (entry.isDirectory()) await this.#walk(join(dir, entry.name), `${key}/`, into);
      else if (entry.isFile()) into.push(key);
    }
  }
}
