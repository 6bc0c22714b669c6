/** GET /v1/artifacts/{key}: prefixes and content types, redirects, traversal refusals, 404s. */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../helpers/app.js';
import { engineSets, openTestEngines, type TestEngines } from '../helpers/harness.js';

for (const { kind, skip } of await engineSets()) {
  describe(`artifacts (${kind})`, { skip }, () => {
    let engines: TestEngines;
    let app: FastifyInstance;
    before(async () => {
      engines = await openTestEngines(kind);
      app = await buildTestApp(engines);
      const { store } = engines.ctx;
      await store.put('logs/job1.log', 'line one\nline two\n', {
        contentType: 'text/plain; charset=utf-8',
      });
      await store.put('videos/job1.mp4', Buffer.from('fake-mp4-bytes'), {
        contentType: 'video/mp4',
      });
      await store.put('thumbnails/job1.jpg', Buffer.from('fake-jpeg'), {
        contentType: 'image/jpeg',
      });
      await store.put('replays/job1.osr', Buffer.from('replay'), {
        contentType: 'application/octet-stream',
      });
      await store.put('skins/Some Skin.osk', Buffer.from('PKskin'), {
        contentType: 'application/octet-stream',
      });
      await store.put('beatmaps/secret.osu', 'not an artifact');
    });
    after(async () => {
      await app?.close();
      await engines?.close();
    });

    async function follow(location: string) {
      if (location.startsWith('/')) {
        const res = await app.inject(location);
        return {
          status: res.statusCode,
          type: String(res.headers['content-type']),
          body: res.rawPayload,
        };
      }
      const res = await fetch(location);
      return {
        status: res.status,
        type: String(res.headers.get('content-type')),
        body: Buffer.from(await res.arrayBuffer()),
      };
    }

    test('logs are returned inline as text/plain', async () => {
      const res = await app.inject('/v1/artifacts/logs/job1.log');
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^text\/plain/);
      assert.equal(res.body, 'line one\nline two\n');
    });

    const redirected: [string, string, string][] = [
      ['videos/job1.mp4', 'video/mp4', 'fake-mp4-bytes'],
      ['thumbnails/job1.jpg', 'image/jpeg', 'fake-jpeg'],
      ['replays/job1.osr', 'application/octet-stream', 'replay'],
      ['skins/Some%20Skin.osk', 'application/octet-stream', 'PKskin'],
    ];
    for (const [key, type, content] of redirected) {
      test(`${key.split('/')[0]}/ → 302 to a signed URL serving ${type}`, async () => {
        const res = await app.inject(`/v1/artifacts/${key}`);
        assert.equal(res.statusCode, 302, res.body);
        const location = String(res.headers.location);
        assert.ok(location.length > 0);
        const target = await follow(location);
        assert.equal(target.status, 200);
        assert.equal(target.type.split(';')[0], type);
        assert.equal(target.body.toString(), content);
      });
    }

    const forbidden = [
      '/v1/artifacts/beatmaps/secret.osu',
      '/v1/artifacts/secret.txt',
      '/v1/artifacts/logs',
      '/v1/artifacts/logs/../beatmaps/secret.osu',
      '/v1/artifacts/logs/%2e%2e/beatmaps/secret.osu',
      '/v1/artifacts/logs%2f..%2fbeatmaps%2fsecret.osu',
      '/v1/artifacts/logs/..%2Fbeatmaps%2Fsecret.osu',
      '/v1/artifacts/%2Fetc%2Fpasswd',
      '/v1/artifacts//etc/passwd',
      '/v1/artifacts/logs/%5c..%5cx',
      '/v1/artifacts/logs\\..\\x.log',
      '/v1/artifacts/logs//job1.log',
      '/v1/artifacts/logs/./job1.log',
      '/v1/artifacts/videos/../logs/job1.log',
      '/v1/artifacts/logs/job1.log%00.mp4',
      '/v1/artifacts/C:/windows/win.ini',
      '/v1/artifacts/LOGS/job1.log',
    ];
    // `inject` resolves dot segments as a browser would; those are checked over a raw socket below.
    for (const url of forbidden.filter((u) => !/\/\.\.?\//.test(u))) {
      test(`403 for ${url}`, async () => {
        const res = await app.inject({ method: 'GET', url });
        assert.equal(res.statusCode, 403, `${url}: ${res.body}`);
        assert.equal(res.json().detail, 'Invalid artifact key.');
      });
    }

    test('403 for the traversal forms sent as-is over a real socket (no client normalisation)', async () => {
      const base = await app.listen({ port: 0, host: '127.0.0.1' });
      const port = new URL(base).port;
      for (const path of forbidden) {
        const status = await new Promise<number>((resolve, reject) => {
          const req = request({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          req.on('error', reject);
          req.end();
        });
        assert.equal(status, 403, path);
      }
    });

    for (const key of [
      'logs/missing.log',
      'videos/missing.mp4',
      'thumbnails/missing.jpg',
      'replays/missing.osr',
      'skins/missing.osk',
    ]) {
      test(`404 for ${key}`, async () => {
        const res = await app.inject(`/v1/artifacts/${key}`);
        assert.equal(res.statusCode, 404);
        assert.equal(res.json().detail, 'Artifact not found.');
      });
    }
  });
}
