/**
 * Object storage: the contract every driver (filesystem, S3) implements.
 *
 * Keys are relative, slash-separated paths such as `videos/<id>.mp4`. A key that is
 * empty, absolute, or contains `..`, `\` or NUL segments is refused with
 * `InvalidObjectKeyError` by every driver, so no caller can reach outside the store.
 */
import type { Readable } from 'node:stream';

export type ObjectBody = Buffer | Uint8Array | string | Readable;

export interface PutOptions {
  /** MIME type stored with the object and served with it. @defaultValue `application/octet-stream` */
  contentType?: string;
  /**
   * The object survives a power loss once `put` resolves (issue 21: a 202 that rests on
   * it). Files: the bytes are fsynced before the rename into place, then the folder
   * holding the new name (and any folder made for it). S3: already so — an object is
   * stored once its PUT is answered. @defaultValue false
   */
  durable?: boolean;
}

export interface SignedUrlOptions {
  /** Lifetime of the URL. @defaultValue 900 (15 minutes) */
  expiresInSeconds?: number;
  /** Content type the download is served with (S3: `ResponseContentType`). */
  contentType?: string;
}

export interface ObjectStore {
  /** `fs` or `s3`: for health output and logs, never for branching. */
  readonly driver: string;
  put(key: string, body: ObjectBody, options?: PutOptions): Promise<void>;
  /** Whole object in memory. Throws `ObjectNotFoundError` when absent. */
  get(key: string): Promise<Buffer>;
  /** Object as a stream. Throws `ObjectNotFoundError` when absent. */
  stream(key: string): Promise<Readable>;
  exists(key: string): Promise<boolean>;
  /** Deleting an absent key is not an error. */
  delete(key: string): Promise<void>;
  /** Every key under a prefix, sorted. */
  list(prefix: string): Promise<string[]>;
  /**
   * A URL a client can GET without credentials until it expires. S3: a pre-signed URL.
   * Filesystem: a path (or absolute URL when a public base URL is configured) served by
   * `registerSignedObjectRoute` of the owning service, with an HMAC-SHA256 signature.
   */
  signedUrl(key: string, options?: SignedUrlOptions): Promise<string>;
  /** Throws when the backing store cannot be reached (for `/health`). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export class ObjectNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`object not found: ${key}`);
    this.name = 'ObjectNotFoundError';
  }
}

export class InvalidObjectKeyError extends Error {
  constructor(readonly key: string) {
    super(`invalid object key: ${JSON.stringify(key)}`);
    this.name = 'InvalidObjectKeyError';
  }
}
