/**
 * Picks the object store driver from configuration: S3 when `s3` is given, else the
 * filesystem. The only module that imports a storage driver.
 */
import { FsObjectStore, type FsStoreOptions } from './fs/fs-object-store.js';
import type { ObjectStore } from './object-store.js';
import { S3ObjectStore, type S3StoreOptions } from './s3/s3-object-store.js';

export type { FsStoreOptions } from './fs/fs-object-store.js';
export type { S3StoreOptions } from './s3/s3-object-store.js';

export interface ObjectStoreOptions {
  /** S3 or S3-compatible storage; takes precedence over `fs`. @defaultValue `undefined` (filesystem) */
  s3?: S3StoreOptions;
  /** Filesystem storage, used when `s3` is absent. @defaultValue `{}` (see `FsStoreOptions`) */
  fs?: FsStoreOptions;
}

export function createObjectStore(options: ObjectStoreOptions = {}): ObjectStore {
  return options.s3 ? new S3ObjectStore(options.s3) : new FsObjectStore(options.fs ?? {});
}
