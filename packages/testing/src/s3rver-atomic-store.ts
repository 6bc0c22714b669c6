/**
 * Makes s3rver's filesystem store behave as S3 does when one key is written and read at
 * the same time: a GET answers the whole old object or the whole new one, never a part.
 *
 * s3rver 3.7 overwrites an object in place (`createWriteStream` truncates the file) and
 * answers the PUT before the bytes are on disk, while a GET takes the length from one
 * `stat` and streams the file afterwards. A GET during a PUT of the same key then sends
 * fewer bytes than its Content-Length and the client waits until the socket is aborted
 * (6 s with the AWS SDK). Render workers re-upload a job's log every `logUploadMs` while
 * tests read it, so this turned into chance test failures.
 *
 * Here a PUT writes into `uploadsDir` (same filesystem) and renames the finished file into
 * place, so a reader that has opened the old file keeps reading it; per key, the rename
 * plus the metadata write, a GET's metadata read plus open, and a DELETE run one at a time.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** The slice of s3rver's FilesystemStore (lib/stores/filesystem.js) replaced here. */
export interface S3rverFilesystemStore {
  getResourcePath(bucket: string, key: string, resource: string): string;
  putMetadata(bucket: string, key: string, metadata: unknown, md5: string): Promise<void>;
  putObject(object: S3rverObject): Promise<{ size: number; md5: string }>;
  getObject(bucket: string, key: string, options?: unknown): Promise<unknown>;
  deleteObject(bucket: string, key: string): Promise<void>;
}

interface S3rverObject {
  bucket: string;
  key: string;
  metadata: unknown;
  content: Buffer | Readable;
}

export function makeS3rverStoreAtomic(store: S3rverFilesystemStore, uploadsDir: string): void {
  const tails = new Map<string, Promise<unknown>>();
  /** Runs `work` after every earlier call for the same object. */
  const oneAtATime = <T>(bucket: string, key: string, work: () => Promise<T>): Promise<T> => {
    const id = `${bucket}\n${key}`;
    const result = (tails.get(id) ?? Promise.resolve()).then(work, work);
    const tail = result.catch(() => undefined);
    tails.set(id, tail);
    void tail.then(() => tails.get(id) === tail && tails.delete(id));
    return result;
  };

  const getObject = store.getObject.bind(store);
  const deleteObject = store.deleteObject.bind(store);
  store.getObject = (bucket, key, options) =>
    oneAtATime(bucket, key, () => getObject(bucket, key, options));
  store.deleteObject = (bucket, key) => oneAtATime(bucket, key, () => deleteObject(bucket, key));
  store.putObject = async (object) => {
    await mkdir(uploadsDir, { recursive: true });
    const temp = join(uploadsDir, randomBytes(8).toString('hex'));
    const md5 = createHash('md5');
    let size = 0;
    try {
      await pipeline(
        Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content,
        new Transform({
          transform(chunk: Buffer, _encoding, callback) {
            md5.update(chunk);
            size += chunk.length;
            callback(null, chunk);
          },
        }),
        createWriteStream(temp),
      );
      const digest = md5.digest('hex');
      await oneAtATime(object.bucket, object.key, async () => {
        const objectPath = store.getResourcePath(object.bucket, object.key, 'object');
        await mkdir(dirname(objectPath), { recursive: true });
        await rename(temp, objectPath);
        await store.putMetadata(object.bucket, object.key, object.metadata, digest);
      });
      return { size, md5: digest };
    } finally {
      await rm(temp, { force: true });
    }
  };
}
