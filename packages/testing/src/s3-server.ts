/**
 * A real S3-protocol server for tests: s3rver on 127.0.0.1, a free port, a temp
 * directory and one bucket with a random name; `stop()` closes it and removes the
 * directory. Writes are made atomic as on S3 (see `s3rver-atomic-store.ts`).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeS3rverStoreAtomic, type S3rverFilesystemStore } from './s3rver-atomic-store.js';

export interface TestS3Server {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  stop(): Promise<void>;
}

/** The slice of s3rver used here (it ships no types). */
interface S3rver {
  store: S3rverFilesystemStore;
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverConstructor = new (options: {
  address: string;
  port: number;
  silent: boolean;
  directory: string;
  configureBuckets: { name: string; configs: string[] }[];
}) => S3rver;

/** s3rver accepts this built-in key pair. */
const ACCESS_KEY = 'S3RVER';

export async function startS3Server(): Promise<TestS3Server> {
  const S3rverClass = createRequire(import.meta.url)('s3rver') as S3rverConstructor;
  const directory = await mkdtemp(join(tmpdir(), 's3rver-'));
  const bucket = `test-${randomBytes(6).toString('hex')}`;
  const server = new S3rverClass({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    // Buckets in data/, uploads in progress beside it (one filesystem: renamed into place).
    directory: join(directory, 'data'),
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  makeS3rverStoreAtomic(server.store, join(directory, 'uploads'));
  let address: AddressInfo;
  try {
    address = await server.run();
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    bucket,
    accessKeyId: ACCESS_KEY,
    secretAccessKey: ACCESS_KEY,
    region: 'us-east-1',
    async stop() {
      await server.close().catch(() => undefined);
      await rm(directory, { recursive: true, force: true });
    },
  };
}
