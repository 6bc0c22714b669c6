/**
 * Capability of a store whose signed URLs are served by the owning service
 * (the filesystem driver), as opposed to a store that serves its own URLs (S3).
 * `registerSignedObjectRoute` asks for it instead of branching on the driver name.
 */
import type { Readable } from 'node:stream';
import type { ObjectStore } from './object-store.js';

/** An inclusive byte range, as in `Range: bytes=start-end`. */
export interface ByteRange {
  start: number;
  end: number;
}

/** One open object: its size and type, readable whole or in ranges. */
export interface OpenedObject {
  size: number;
  contentType: string;
  /** Reads the object (or one range of it); the handle is released when the stream ends. */
  createReadStream(range?: ByteRange): Readable;
  /** Releases the handle when no stream is read. */
  close(): Promise<void>;
}

export interface SignedObjectServer {
  /** Path prefix its signed URLs use, such as `/_objects`. */
  readonly signedRoutePrefix: string;
  /** True when `signature` signs `key` and `expires` (Unix seconds) has not passed. */
  verifySignature(key: string, expires: string | number, signature: string): boolean;
  /** Throws `ObjectNotFoundError` when absent, `InvalidObjectKeyError` for a bad key. */
  openObject(key: string): Promise<OpenedObject>;
}

export function asSignedObjectServer(
  store: ObjectStore,
): (ObjectStore & SignedObjectServer) | undefined {
  const candidate = store as ObjectStore & Partial<SignedObjectServer>;
  return typeof candidate.verifySignature === 'function' &&
    typeof candidate.openObject === 'function' &&
    typeof candidate.signedRoutePrefix === 'string'
    ? (candidate as ObjectStore & SignedObjectServer)
    : undefined;
}
