/**
 * S3 object store (AWS S3 or any S3-compatible server: MinIO, s3rver, R2...).
 *
 * Signed URLs are pre-signed `GetObject` URLs that S3 serves itself. Streams are
 * uploaded with multipart uploads, so their length need not be known.
 * Request checksums are sent only when an operation requires them, which every
 * S3-compatible server accepts.
 */
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { Readable } from 'node:stream';
import { DEFAULT_CONTENT_TYPE, DEFAULT_SIGNED_URL_EXPIRES_SECONDS } from '../object-defaults.js';
import { assertValidObjectKey, assertValidObjectPrefix } from '../object-key.js';
import {
  ObjectNotFoundError,
  type ObjectBody,
  type ObjectStore,
  type PutOptions,
  type SignedUrlOptions,
} from '../object-store.js';

export interface S3StoreOptions {
  /** Bucket holding the objects. */
  bucket: string;
  /** Endpoint of an S3-compatible server, such as `http://127.0.0.1:9000`. @defaultValue AWS S3 for `region` */
  endpoint?: string;
  /** @defaultValue `us-east-1` */
  region?: string;
  /** Static keys. @defaultValue the AWS SDK's default chain (env, profile, instance role) */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Path-style URLs (`endpoint/bucket/key`). @defaultValue `true` when `endpoint` is given, else `false` */
  forcePathStyle?: boolean;
  /** Create the bucket at `ping()` or first use when it is missing. @defaultValue `false` */
  createBucket?: boolean;
}

interface S3ErrorShape {
  name?: string;
  Code?: string;
  $metadata?: { httpStatusCode?: number };
}

function isMissing(error: unknown): boolean {
  const e = error as S3ErrorShape | undefined;
  if (e?.name === 'NoSuchBucket') return false;
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}

export class S3ObjectStore implements ObjectStore {
  readonly driver = 's3';
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #createBucket: boolean;
  #ready: Promise<void> | undefined;

  constructor(options: S3StoreOptions) {
    this.#bucket = options.bucket;
    this.#createBucket = options.createBucket ?? false;
    this.#client = new S3Client({
      region: options.region ?? 'us-east-1',
      ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
      ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
      forcePathStyle: options.forcePathStyle ?? options.endpoint !== undefined,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async put(key: string, body: ObjectBody, options: PutOptions = {}): Promise<void> {
    assertValidObjectKey(key);
    await this.#ensureBucket();
    const params = {
      Bucket: this.#bucket,
      Key: key,
      ContentType: options.contentType ?? DEFAULT_CONTENT_TYPE,
    };
    if (body instanceof Readable) {
      await new Upload({ client: this.#client, params: { ...params, Body: body } }).done();
    } else {
      await this.#client.send(new PutObjectCommand({ ...params, Body: body }));
    }
  }

  async get(key: string): Promise<Buffer> {
    const body = await this.#getBody(key);
    return Buffer.from(await body.transformToByteArray());
  }

  async stream(key: string): Promise<Readable> {
    // In Node the SDK's body is an IncomingMessage: a Readable.
    return (await this.#getBody(key)) as unknown as Readable;
  }

  async exists(key: string): Promise<boolean> {
    assertValidObjectKey(key);
    await this.#ensureBucket();
    try {
      await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: key }));
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    assertValidObjectKey(key);
    await this.#ensureBucket();
    await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: key }));
  }

  async list(prefix: string): Promise<string[]> {
    assertValidObjectPrefix(prefix);
    await this.#ensureBucket();
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.#client.send(
        new ListObjectsV2Command({
          Bucket: this.#bucket,
          Prefix: prefix,
          ContinuationToken: token,
        }),
      );
      for (const object of page.Contents ?? []) if (object.Key !== undefined) keys.push(object.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    return keys.sort();
  }

  async signedUrl(key: string, options: SignedUrlOptions = {}): Promise<string> {
    assertValidObjectKey(key);
    await this.#ensureBucket();
    const command = new GetObjectCommand({
      Bucket: this.#bucket,
      Key: key,
      ...(options.contentType === undefined ? {} : { ResponseContentType: options.contentType }),
    });
    return getSignedUrl(this.#client, command, {
      expiresIn: Math.ceil(options.expiresInSeconds ?? DEFAULT_SIGNED_URL_EXPIRES_SECONDS),
    });
  }

  async ping(): Promise<void> {
    await this.#ensureBucket();
    await this.#client.send(new HeadBucketCommand({ Bucket: this.#bucket }));
  }

  async close(): Promise<void> {
    this.#client.destroy();
  }

  async #getBody(key: string) {
    assertValidObjectKey(key);
    await this.#ensureBucket();
    try {
      const response = await this.#client.send(
        new GetObjectCommand({ Bucket: this.#bucket, Key: key }),
      );
      if (response.Body === undefined) throw new ObjectNotFoundError(key);
      return response.Body;
    } catch (error) {
      if (isMissing(error)) throw new ObjectNotFoundError(key);
      throw error;
    }
  }

  #ensureBucket(): Promise<void> {
    if (!this.#createBucket) return Promise.resolve();
    this.#ready ??= this.#createBucketIfMissing().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  async #createBucketIfMissing(): Promise<void> {
    try {
      await this.#client.send(new HeadBucketCommand({ Bucket: this.#bucket }));
      return;
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    try {
      await this.#client.send(new CreateBucketCommand({ Bucket: this.#bucket }));
    } catch (error) {
      const name = (error as S3ErrorShape).name;
      if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw error;
    }
  }
}
