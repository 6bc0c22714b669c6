/**
 * One conformance suite for every object store driver: the filesystem in a temp folder,
 * S3 against a real S3-protocol server. `STORE_DRIVERS=fs` (or `s3`) narrows the run.
 */
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { startS3Server } from '@platform/testing';
import { createObjectStore } from '../../src/storage/create-object-store.js';
import {
  InvalidObjectKeyError,
  ObjectNotFoundError,
  type ObjectStore,
} from '../../src/storage/object-store.js';
import { registerSignedObjectRoute } from '../../src/storage/signed-object-route.js';
import { asSignedObjectServer } from '../../src/storage/signed-object-server.js';

interface Harness {
  store: ObjectStore;
  /** Absolute URL for what `signedUrl` returned. */
  absolute(url: string): string;
  stop(): Promise<void>;
}

const SECRET = randomBytes(32).toString('hex');

const DRIVERS: Record<string, () => Promise<Harness>> = {
  async fs() {
    const root = await mkdtemp(join(tmpdir(), 'fs-object-store-'));
    const store = createObjectStore({ fs: { root, signingSecret: SECRET } });
    const app: FastifyInstance = Fastify();
    assert.equal(registerSignedObjectRoute(app, store), true);
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    return {
      store,
      absolute: (url) => new URL(url, base).toString(),
      async stop() {
        await app.close();
        await store.close();
        await rm(root, { recursive: true, force: true });
      },
    };
  },
  async s3() {
    const server = await startS3Server();
    const store = createObjectStore({
      s3: {
        endpoint: server.endpoint,
        bucket: server.bucket,
        region: server.region,
        credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
      },
    });
    assert.equal(registerSignedObjectRoute(Fastify(), store), false);
    return {
      store,
      absolute: (url) => url,
      async stop() {
        await store.close();
        await server.stop();
      },
    };
  },
};

const selected = (process.env.STORE_DRIVERS ?? Object.keys(DRIVERS).join(','))
  .split(',')
  .map((name) => name.trim())
  .filter(Boolean);
for (const name of selected) assert.ok(DRIVERS[name], `STORE_DRIVERS: unknown driver ${name}`);

const INVALID_KEYS = [
  '../x',
  '/abs',
  'a\\b',
  'a/../../b',
  '',
  'a\0b',
  'a//b',
  './a',
  'a/%2e%2e/b',
  'a%2Fb',
];

/** GET without URL normalisation (fetch would resolve `%2e%2e` segments). */
function rawStatus(absoluteUrl: string): Promise<number> {
  const url = new URL(absoluteUrl);
  const path = absoluteUrl.slice(url.origin.length);
  return new Promise((resolve, reject) => {
    request({ host: url.hostname, port: url.port, path }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    })
      .on('error', reject)
      .end();
  });
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

for (const driver of selected) {
  describe(`object store conformance: ${driver}`, () => {
    let h: Harness;
    let store: ObjectStore;

    before(async () => {
      h = await DRIVERS[driver]!();
      store = h.store;
    });
    after(async () => {
      await h?.stop();
    });

    it('reports its driver and answers ping', async () => {
      assert.equal(store.driver, driver);
      await store.ping();
    });

    it('puts and gets buffers, byte arrays and strings', async () => {
      await store.put('roundtrip/buffer.bin', Buffer.from([0, 1, 2, 255]));
      await store.put('roundtrip/bytes.bin', new Uint8Array([9, 8, 7]));
      await store.put('roundtrip/text.txt', 'héllo', { contentType: 'text/plain; charset=utf-8' });
      assert.deepEqual(await store.get('roundtrip/buffer.bin'), Buffer.from([0, 1, 2, 255]));
      assert.deepEqual(await store.get('roundtrip/bytes.bin'), Buffer.from([9, 8, 7]));
      assert.equal((await store.get('roundtrip/text.txt')).toString('utf8'), 'héllo');
    });

    it('puts from a stream and streams back', async () => {
      const parts = Array.from({ length: 50 }, (_, i) => Buffer.alloc(1000, i));
      await store.put('streams/a.bin', Readable.from(parts), { contentType: 'application/x-test' });
      const back = await collect(await store.stream('streams/a.bin'));
      assert.deepEqual(back, Buffer.concat(parts));
    });

    it('stores a large stream (multipart on S3)', async () => {
      const big = randomBytes(6 * 1024 * 1024 + 17);
      const chunks = Array.from({ length: Math.ceil(big.length / 65536) }, (_, i) =>
        big.subarray(i * 65536, (i + 1) * 65536),
      );
      await store.put('streams/big.bin', Readable.from(chunks));
      assert.ok((await store.get('streams/big.bin')).equals(big));
    });

    it('tells existence, deletes, and deleting an absent key is fine', async () => {
      await store.put('exists/one', 'x');
      assert.equal(await store.exists('exists/one'), true);
      assert.equal(await store.exists('exists/two'), false);
      assert.equal(await store.exists('exists'), false);
      await store.delete('exists/one');
      assert.equal(await store.exists('exists/one'), false);
      await store.delete('exists/one');
      await store.delete('never/was');
    });

    it('throws ObjectNotFoundError for a missing key', async () => {
      await assert.rejects(store.get('missing/key'), ObjectNotFoundError);
      await assert.rejects(store.stream('missing/key'), ObjectNotFoundError);
      await store.put('missing/dir/child', 'x');
      await assert.rejects(store.get('missing/dir'), ObjectNotFoundError);
      await assert.rejects(store.stream('missing/dir'), ObjectNotFoundError);
      const error = await store.get('missing/key').catch((e: unknown) => e);
      assert.ok(error instanceof ObjectNotFoundError);
      assert.equal(error.key, 'missing/key');
    });

    it('lists every key under a prefix, sorted', async () => {
      for (const key of ['list/b/2', 'list/a', 'list/b/1', 'list/c.txt', 'listing/x', 'other/x']) {
        await store.put(key, key);
      }
      assert.deepEqual(await store.list('list/'), ['list/a', 'list/b/1', 'list/b/2', 'list/c.txt']);
      assert.deepEqual(await store.list('list/b'), ['list/b/1', 'list/b/2']);
      assert.deepEqual(await store.list('list'), [
        'list/a',
        'list/b/1',
        'list/b/2',
        'list/c.txt',
        'listing/x',
      ]);
      assert.deepEqual(await store.list('nothing/'), []);
      await store.delete('list/b/1');
      await store.delete('list/b/2');
      assert.deepEqual(await store.list('list/'), ['list/a', 'list/c.txt']);
      assert.ok((await store.list('')).includes('other/x'));
    });

    it('overwrites bytes and content type', async () => {
      await store.put('over/write', 'first', { contentType: 'text/plain' });
      await store.put('over/write', 'second', { contentType: 'application/json' });
      assert.equal((await store.get('over/write')).toString(), 'second');
      const response = await fetch(h.absolute(await store.signedUrl('over/write')));
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'application/json');
      assert.equal(await response.text(), 'second');
      // Back to the default type (the file store keeps no sidecar for it).
      await store.put('over/write', 'third');
      const untyped = await fetch(h.absolute(await store.signedUrl('over/write')));
      assert.equal(untyped.headers.get('content-type'), 'application/octet-stream');
      assert.equal(await untyped.text(), 'third');
    });

    it('a read during overwrites gets one whole version, never a part (as on S3)', async () => {
      // Each version starts with its number and grows, as a job log re-uploaded while read.
      const version = (n: number) => `${n}\n${'line\n'.repeat(200 + n * 20)}`;
      await store.put('over/growing', version(0));
      const versions = 30;
      let written = 0;
      const writer = (async () => {
        for (let n = 1; n <= versions; n++) {
          await store.put('over/growing', version(n));
          written = n;
        }
      })();
      const reads: string[] = [];
      while (written < versions) reads.push((await store.get('over/growing')).toString());
      await writer;
      for (const text of reads) assert.equal(text, version(Number(text.split('\n')[0])));
      assert.ok(reads.length > 0);
    });

    it('refuses invalid keys everywhere', async () => {
      for (const key of INVALID_KEYS) {
        const label = JSON.stringify(key);
        await assert.rejects(store.put(key, 'x'), InvalidObjectKeyError, `put ${label}`);
        await assert.rejects(store.get(key), InvalidObjectKeyError, `get ${label}`);
        await assert.rejects(store.stream(key), InvalidObjectKeyError, `stream ${label}`);
        await assert.rejects(store.exists(key), InvalidObjectKeyError, `exists ${label}`);
        await assert.rejects(store.delete(key), InvalidObjectKeyError, `delete ${label}`);
        await assert.rejects(store.signedUrl(key), InvalidObjectKeyError, `signedUrl ${label}`);
      }
      await assert.rejects(store.list('../'), InvalidObjectKeyError);
      await assert.rejects(store.list('/abs'), InvalidObjectKeyError);
    });

    it('serves a signed URL over HTTP with the bytes, type and length', async () => {
      const bytes = randomBytes(4096);
      await store.put('signed/clip one.mp4', bytes, { contentType: 'video/mp4' });
      const response = await fetch(h.absolute(await store.signedUrl('signed/clip one.mp4')));
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'video/mp4');
      assert.equal(response.headers.get('content-length'), String(bytes.length));
      assert.ok(Buffer.from(await response.arrayBuffer()).equals(bytes));
    });

    it('keeps application/octet-stream as the default type', async () => {
      await store.put('signed/untyped', 'x');
      const response = await fetch(h.absolute(await store.signedUrl('signed/untyped')));
      assert.equal(response.headers.get('content-type'), 'application/octet-stream');
      await response.arrayBuffer();
    });

    it('answers a Range request with 206 partial content', async () => {
      const bytes = randomBytes(10_000);
      await store.put('signed/range.mp4', bytes, { contentType: 'video/mp4' });
      const url = h.absolute(await store.signedUrl('signed/range.mp4'));
      const response = await fetch(url, { headers: { Range: 'bytes=100-1099' } });
      assert.equal(response.status, 206);
      assert.equal(response.headers.get('content-range'), 'bytes 100-1099/10000');
      assert.equal(response.headers.get('content-length'), '1000');
      assert.ok(Buffer.from(await response.arrayBuffer()).equals(bytes.subarray(100, 1100)));

      const tail = await fetch(url, { headers: { Range: 'bytes=9990-' } });
      assert.equal(tail.status, 206);
      assert.ok(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(9990)));
    });

    it('signs its own URLs with the requested lifetime and type (stores serving their own URLs)', async (t) => {
      if (asSignedObjectServer(store))
        return t.skip('this store has its URLs served by the service');
      await store.put('signed/typed.bin', 'typed');
      const url = new URL(
        await store.signedUrl('signed/typed.bin', {
          expiresInSeconds: 60,
          contentType: 'text/csv',
        }),
      );
      assert.equal(url.searchParams.get('X-Amz-Expires'), '60');
      assert.equal(url.searchParams.get('response-content-type'), 'text/csv');
      assert.match(url.searchParams.get('X-Amz-Signature') ?? '', /^[0-9a-f]{64}$/);
      // The test server does not check SigV4 signatures, so tampering is tested on S3 itself only.
      const response = await fetch(url);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'text/csv');
      assert.equal(await response.text(), 'typed');
    });

    it('refuses tampered or expired URLs and other keys, says 404 for a missing object (self-served URLs)', async (t) => {
      const server = asSignedObjectServer(store);
      if (!server) return t.skip('this store serves its own URLs');
      await store.put('signed/expiring.txt', 'x');
      const sign = (key: string, expires: number) =>
        createHmac('sha256', SECRET).update(`${key}\n${expires}`).digest('hex');
      const past = Math.floor(Date.now() / 1000) - 5;
      const expired = `/_objects/signed/expiring.txt?expires=${past}&signature=${sign('signed/expiring.txt', past)}`;
      const response = await fetch(h.absolute(expired));
      assert.equal(response.status, 403);
      assert.deepEqual(await response.json(), {
        detail: 'Invalid or expired signature.',
        code: 'SIGNATURE_INVALID',
      });

      const future = Math.floor(Date.now() / 1000) + 60;
      const valid = `/_objects/signed/expiring.txt?expires=${future}&signature=${sign('signed/expiring.txt', future)}`;
      assert.equal((await fetch(h.absolute(valid))).status, 200);
      const head = await fetch(h.absolute(valid), { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get('content-length'), '1');
      assert.equal(
        server.verifySignature('signed/expiring.txt', future, sign('signed/expiring.txt', future)),
        true,
      );
      assert.equal(
        server.verifySignature('signed/expiring.txt', past, sign('signed/expiring.txt', past)),
        false,
      );

      const otherKey = `/_objects/signed/secret.txt?expires=${future}&signature=${sign('signed/expiring.txt', future)}`;
      assert.equal((await fetch(h.absolute(otherKey))).status, 403);
      assert.equal((await fetch(h.absolute('/_objects/signed/expiring.txt'))).status, 403);

      const url = new URL(h.absolute(await store.signedUrl('signed/expiring.txt')));
      const signature = url.searchParams.get('signature')!;
      url.searchParams.set('signature', `${signature[0] === 'a' ? 'b' : 'a'}${signature.slice(1)}`);
      assert.equal((await fetch(url)).status, 403);
      url.searchParams.set('signature', signature.slice(1));
      assert.equal((await fetch(url)).status, 403);

      const missing = await fetch(h.absolute(await store.signedUrl('signed/gone.txt')));
      assert.equal(missing.status, 404);
      assert.deepEqual(await missing.json(), { detail: 'Not found.', code: 'OBJECT_NOT_FOUND' });

      // Dot segments are resolved before routing; encoded slashes reach the key check.
      const dotted = `/_objects/a/%2e%2e/%2e%2e/b?expires=${future}&signature=${sign('b', future)}`;
      assert.equal(await rawStatus(h.absolute(dotted)), 404);
      const traversal = `/_objects/a%2F..%2F..%2Fb?expires=${future}&signature=${sign('a/../../b', future)}`;
      assert.equal(await rawStatus(h.absolute(traversal)), 403);

      const unsatisfiable = await fetch(h.absolute(valid), { headers: { Range: 'bytes=50-60' } });
      assert.equal(unsatisfiable.status, 416);
      assert.equal(unsatisfiable.headers.get('content-range'), 'bytes */1');
      await unsatisfiable.arrayBuffer();
    });
  });
}

describe('filesystem keys', () => {
  // s3rver, which stores keys as file names too, answers such a key with an internal error;
  // S3 takes keys of up to 1024 bytes, so this is the file system's limit alone.
  it('a key segment longer than a file name may be is not found, not an error', async () => {
    const root = await mkdtemp(join(tmpdir(), 'fs-object-store-'));
    try {
      const store = createObjectStore({ fs: { root, signingSecret: 's' } });
      await store.put('missing/other', 'x'); // the folder exists: the long name itself is looked up
      const key = `missing/${'n'.repeat(300)}`;
      await assert.rejects(store.get(key), ObjectNotFoundError);
      await assert.rejects(store.stream(key), ObjectNotFoundError);
      assert.equal(await store.exists(key), false);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('filesystem content types', () => {
  // A default-type object has no sidecar file, so a typed put below it could commit its
  // sidecar and then fail on the object (its folder is a file): that sidecar must go, or
  // a later typed put of the key above would find a folder where its sidecar goes.
  it('a put refused for a key below an object leaves nothing that blocks the key above', async () => {
    const root = await mkdtemp(join(tmpdir(), 'fs-object-store-'));
    try {
      const store = createObjectStore({ fs: { root, signingSecret: 's' } });
      await store.put('nest/a', 'plain');
      await assert.rejects(store.put('nest/a/b', 'below', { contentType: 'text/plain' }));
      await store.delete('nest/a');
      await store.put('nest/a', 'typed', { contentType: 'text/csv' });
      assert.equal((await store.get('nest/a')).toString(), 'typed');
      assert.equal(
        (await asSignedObjectServer(store)!.openObject('nest/a')).contentType,
        'text/csv',
      );
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('filesystem signed URLs', () => {
  it('use the public base URL and route prefix, with each key segment encoded', async () => {
    const root = await mkdtemp(join(tmpdir(), 'fs-object-store-'));
    try {
      const store = createObjectStore({
        fs: {
          root,
          signingSecret: 's',
          publicBaseUrl: 'https://cdn.example.com/',
          routePrefix: '/files',
        },
      });
      const url = new URL(await store.signedUrl('a b/c#d.mp4', { expiresInSeconds: 60 }));
      assert.equal(url.origin, 'https://cdn.example.com');
      assert.equal(url.pathname, '/files/a%20b/c%23d.mp4');
      const expires = Number(url.searchParams.get('expires'));
      assert.ok(Math.abs(expires - (Math.floor(Date.now() / 1000) + 60)) <= 1);
      const expected = createHmac('sha256', 's').update(`a b/c#d.mp4\n${expires}`).digest('hex');
      assert.equal(url.searchParams.get('signature'), expected);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
