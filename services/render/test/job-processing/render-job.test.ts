/**
 * Job processing end to end with the real renderer (small frames): submit → outbox →
 * dispatcher → queue → worker → artifacts; beatmaps from the library, from a mirror
 * (a local HTTP server in its place) and cached; failures with clear reasons; the
 * timeout; progress and the log readable while rendering; temp folders removed.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { beatmapMd5 } from '@platform/osu';
import { madeOsuFixturesDir } from '@platform/testing';
import { buildTestApp, submit } from '../helpers/app.js';
import { readFixture } from '../helpers/fixtures.js';
import {
  engineSets,
  freshAddress,
  multipart,
  openTestEngines,
  type TestEngines,
} from '../helpers/harness.js';
import {
  startTestJobProcessing,
  waitForJob,
  type TestJobProcessing,
} from '../helpers/job-processing.js';
import { makeZip, goodSkinEntries } from '../helpers/zips.js';

interface Mirror {
  url: string;
  hits: string[];
  close(): Promise<void>;
}

/**
 * A stand-in for the beatmap mirror: serves fixture .osu files by MD5 at /osu/<md5>, and
 * the made set as an .osz (map, storyboard, audio, background) at /osz/<md5>.
 */
async function startMirror(): Promise<Mirror> {
  const dir = madeOsuFixturesDir();
  const byMd5 = new Map<string, Buffer>();
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.osu'))) {
    const data = readFileSync(join(dir, name));
    byMd5.set(beatmapMd5(data), data);
  }
  const set = await makeZip(
    ['made.osu', 'made.osb', 'audio.wav', 'bg.png', 'sb-dot.png'].map((name) => ({
      name,
      data: readFileSync(join(dir, name)),
    })),
  );
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    const osz = /^\/osz\/([0-9a-f]{32})$/.exec(req.url ?? '')?.[1];
    if (osz) {
      hits.push(`osz:${osz}`);
      if (byMd5.has(osz)) res.writeHead(200).end(set);
      else res.writeHead(404).end('not found');
      return;
    }
    const md5 = /^\/osu\/([0-9a-f]{32})$/.exec(req.url ?? '')?.[1];
    hits.push(md5 ?? String(req.url));
    if (md5 === 'f'.repeat(32)) {
      res.writeHead(200).end('osu file format v14\n[Metadata]\nTitle:Wrong\n');
      return;
    }
    const data = md5 && byMd5.get(md5);
    if (!data) res.writeHead(404).end('not found');
    else res.writeHead(200, { 'content-type': 'text/plain' }).end(data);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/osu/{md5}`,
    hits,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

type Job = {
  status: string;
  progress: number;
  error: string | null;
  map_title: string | null;
  links: Record<string, string>;
};

for (const { kind, skip } of await engineSets()) {
  describe(`render job processing (${kind})`, { skip }, () => {
    let engines: TestEngines;
    let app: FastifyInstance;
    let processing: TestJobProcessing;
    let mirror: Mirror;
    const getJob = (id: string) => async () => (await app.inject(`/v1/jobs/${id}`)).json() as Job;
    const finished = (j: Job) => j.status === 'completed' || j.status === 'failed';

    before(async () => {
      engines = await openTestEngines(kind, { maxQueued: 1000, maxRendering: 1000 });
      app = await buildTestApp(engines);
      mirror = await startMirror();
      processing = await startTestJobProcessing(engines, {
        beatmapDirs: [madeOsuFixturesDir()],
        mirrorUrl: mirror.url,
      });
    });
    after(async () => {
      await processing?.stop();
      await app?.close();
      await engines?.close();
      await mirror?.close();
    });

    test('a replay becomes a video, a thumbnail and a log; progress and the log are visible while rendering', async () => {
      const res = await submit(app, {
        address: freshAddress(),
        replay: readFixture('perfect.osr'),
      });
      assert.equal(res.statusCode, 202);
      const id = res.json().job_id as string;
      const seen = new Set<string>();
      let logWhileRunning: string | undefined;
      const job = await waitForJob(async () => {
        const j = await getJob(id)();
        seen.add(j.status);
        if (
          (j.status === 'rendering' || j.status === 'downloading') &&
          logWhileRunning === undefined
        ) {
          // 404 until the worker's first upload; any other answer is a fault, not a wait.
          const log = await app.inject(`/v1/artifacts/logs/${id}.log`);
          assert.ok([200, 404].includes(log.statusCode), `log while running: ${log.body}`);
          if (log.statusCode === 200) logWhileRunning = log.body;
        }
        return j;
      }, finished);
      assert.equal(job.status, 'completed', job.error ?? '');
      assert.equal(job.progress, 100);
      assert.match(job.map_title ?? '', /Made For Tests/);
      assert.ok(seen.has('rendering') || seen.has('downloading'), `saw ${[...seen]}`);
      assert.ok(logWhileRunning?.includes(`job ${id} taken`), 'log readable during the job');
      const video = await engines.ctx.store.get(`videos/${id}.mp4`);
      assert.equal(video.subarray(4, 8).toString('latin1'), 'ftyp');
      const thumb = await engines.ctx.store.get(`thumbnails/${id}.jpg`);
      assert.deepEqual([...thumb.subarray(0, 2)], [0xff, 0xd8]);
      const log = await app.inject(job.links.log!);
      assert.match(log.body, /completed/);
      // The thumbnail is taken inside the video's length.
      const thumbAt = Number(/thumbnail: frame \d+ \(([\d.]+) s\)/.exec(log.body)?.[1]);
      const duration = Number(/rendered \d+ frames, ([\d.]+) s/.exec(log.body)?.[1]);
      assert.ok(thumbAt >= 0 && thumbAt < duration, `thumbnail at ${thumbAt} s of ${duration} s`);
      assert.equal((await app.inject(job.links.video!)).statusCode, 302);
      assert.deepEqual(await processing.leftovers(), [], 'temp folder removed');
      const legacy = (await app.inject(`/status/${id.replaceAll('-', '')}`)).json();
      assert.equal(legacy.status, 'complete');
      assert.equal(legacy.percent, 100);
    });

    test('a beatmap missing from the library comes from the mirror once, then from the storage cache', async () => {
      // Job processing without the library: the mirror is the only source.
      await processing.stop();
      processing = await startTestJobProcessing(engines, { mirrorUrl: mirror.url });
      const replay = readFixture('perfect.osr');
      const md5 = beatmapMd5(readFixture('made.osu'));
      const hitsBefore = mirror.hits.filter((h) => h === md5).length;
      await engines.ctx.store.delete(`beatmaps/${md5}.osu`);
      const first = (await submit(app, { address: freshAddress(), replay })).json().job_id;
      assert.equal((await waitForJob(getJob(first), finished)).status, 'completed');
      assert.ok(await engines.ctx.store.exists(`beatmaps/${md5}.osu`), 'cached in object storage');
      const second = (await submit(app, { address: freshAddress(), replay })).json().job_id;
      assert.equal((await waitForJob(getJob(second), finished)).status, 'completed');
      assert.equal(mirror.hits.filter((h) => h === md5).length - hitsBefore, 1, 'downloaded once');
      const log = await engines.ctx.store.get(`logs/${second}.log`);
      assert.match(log.toString(), /\(cache\)/);
    });

    test('a mirror answering the whole set: the render has the map audio, the set is cached for the next job', async () => {
      await processing.stop();
      processing = await startTestJobProcessing(engines, {
        mirrorUrl: mirror.url.replace('/osu/', '/osz/'),
      });
      const replay = readFixture('perfect.osr');
      const md5 = beatmapMd5(readFixture('made.osu'));
      await engines.ctx.store.delete(`beatmaps/${md5}.osu`);
      await engines.ctx.store.delete(`beatmaps/${md5}.set`);
      const hitsBefore = mirror.hits.filter((h) => h === `osz:${md5}`).length;
      const first = (await submit(app, { address: freshAddress(), replay })).json().job_id;
      const done = await waitForJob(getJob(first), finished);
      assert.equal(done.status, 'completed', done.error ?? '');
      assert.match((await engines.ctx.store.get(`logs/${first}.log`)).toString(), /\(mirror\)/);
      // The video carries a sound track ('soun' handler): the set's audio.wav was beside the map.
      const video = await engines.ctx.store.get(`videos/${first}.mp4`);
      assert.ok(video.includes(Buffer.from('soun')), 'the video has an audio track');
      assert.ok(await engines.ctx.store.exists(`beatmaps/${md5}.set`), 'the set is cached');
      const second = (await submit(app, { address: freshAddress(), replay })).json().job_id;
      assert.equal((await waitForJob(getJob(second), finished)).status, 'completed');
      assert.match((await engines.ctx.store.get(`logs/${second}.log`)).toString(), /\(cache\)/);
      assert.equal(mirror.hits.filter((h) => h === `osz:${md5}`).length - hitsBefore, 1);
      assert.deepEqual(await processing.leftovers(), [], 'temp folders removed');
    });

    test('a beatmap nowhere to be found fails the job with a clear reason', async () => {
      // A replay naming a beatmap MD5 that neither the library nor the mirror has.
      const replay = Buffer.from(readFixture('perfect.osr'));
      const md5 = beatmapMd5(readFixture('made.osu'));
      const at = replay.indexOf(Buffer.from(md5));
      Buffer.from('0'.repeat(32)).copy(replay, at);
      const id = (await submit(app, { address: freshAddress(), replay })).json().job_id;
      const job = await waitForJob(getJob(id), finished);
      assert.equal(job.status, 'failed');
      assert.equal(job.error, `Beatmap ${'0'.repeat(32)} was not found locally or on the mirror.`);
      assert.deepEqual(await processing.leftovers(), []);
    });

    test('a mirror answer with the wrong content is refused', async () => {
      // Its own job processing on the .osu mirror: the test before may have left one on the .osz one.
      await processing.stop();
      processing = await startTestJobProcessing(engines, { mirrorUrl: mirror.url });
      const replay = Buffer.from(readFixture('perfect.osr'));
      Buffer.from('f'.repeat(32)).copy(
        replay,
        replay.indexOf(Buffer.from(beatmapMd5(readFixture('made.osu')))),
      );
      const id = (await submit(app, { address: freshAddress(), replay })).json().job_id;
      const job = await waitForJob(getJob(id), finished);
      assert.equal(job.status, 'failed');
      assert.match(job.error ?? '', /different beatmap/);
    });

    test('an uploaded skin is used for the render', async () => {
      const { body, contentType } = multipart({}, [
        { field: 'skin', filename: 'Pipeline Skin.osk', data: await makeZip(goodSkinEntries()) },
      ]);
      const up = await app.inject({
        method: 'POST',
        url: '/v1/skins/upload',
        payload: body,
        headers: { 'content-type': contentType, 'edge-connecting-ip': freshAddress() },
      });
      assert.equal(up.statusCode, 200, up.body);
      const id = (
        await submit(app, {
          address: freshAddress(),
          replay: readFixture('perfect.osr'),
          fields: { skin: 'Pipeline Skin' },
        })
      ).json().job_id;
      const job = await waitForJob(getJob(id), finished);
      assert.equal(job.status, 'completed', job.error ?? '');
      assert.match(
        (await engines.ctx.store.get(`logs/${id}.log`)).toString(),
        /with skin Pipeline Skin/,
      );
      assert.deepEqual(await processing.leftovers(), []);
    });

    test('a beatmap inside an .osz archive in the library is found by MD5', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'render-osz-'));
      try {
        await writeFile(
          join(dir, 'pack.osz'),
          await makeZip([
            { name: 'Some Map [test].osu', data: readFixture('made.osu') },
            { name: 'bg.jpg', data: Buffer.from('x') },
          ]),
        );
        await processing.stop();
        processing = await startTestJobProcessing(engines, { beatmapDirs: [dir] });
        const id = (
          await submit(app, { address: freshAddress(), replay: readFixture('perfect.osr') })
        ).json().job_id;
        const job = await waitForJob(getJob(id), finished);
        assert.equal(job.status, 'completed', job.error ?? '');
        assert.match(
          (await engines.ctx.store.get(`logs/${id}.log`)).toString(),
          /found \(library\)/,
        );
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    test('two workers with their dispatchers (one BullMQ queue on Redis): every job rendered exactly once', async () => {
      await processing.stop();
      processing = await startTestJobProcessing(engines, { beatmapDirs: [madeOsuFixturesDir()] });
      const second = await startTestJobProcessing(engines, {
        beatmapDirs: [madeOsuFixturesDir()],
        worker: { workerId: 'second-worker' },
      });
      try {
        const ids = [];
        for (let i = 0; i < 4; i += 1)
          ids.push(
            (
              await submit(app, { address: freshAddress(), replay: readFixture('perfect.osr') })
            ).json().job_id as string,
          );
        for (const id of ids)
          assert.equal((await waitForJob(getJob(id), finished, 60_000)).status, 'completed');
        for (const id of ids) {
          const log = (await engines.ctx.store.get(`logs/${id}.log`)).toString();
          assert.equal(log.match(/ taken by /g)?.length, 1, `job ${id} rendered once`);
        }
      } finally {
        await second.stop();
      }
    });

    test('a worker shut down mid-render gives the job back to the queue, and it completes later', async () => {
      await processing.stop();
      processing = await startTestJobProcessing(engines, {
        beatmapDirs: [madeOsuFixturesDir()],
        worker: { width: 1280, height: 720, fps: 60 },
      });
      const id = (
        await submit(app, { address: freshAddress(), replay: readFixture('perfect.osr') })
      ).json().job_id as string;
      // Progress is reported while rendering (between 0 and 100).
      await waitForJob(
        getJob(id),
        (j) => j.status === 'rendering' && j.progress > 0 && j.progress < 100,
      );
      // As main.ts shuts down: the dispatcher first, then the worker.
      await processing.dispatcher.stop();
      await processing.worker!.stop();
      const back = await getJob(id)();
      assert.equal(back.status, 'queued');
      assert.equal(back.progress, 0);
      const events = await engines.ctx.db.query('SELECT id FROM render_outbox WHERE job_id = $1', [
        id,
      ]);
      assert.equal(events.rows.length, 2, 'a new outbox event for the new dispatch');
      const pending = await engines.ctx.db.query(
        'SELECT id FROM render_outbox WHERE job_id = $1 AND dispatched_at IS NULL',
        [id],
      );
      assert.equal(pending.rows.length, 1, 'waiting for the next dispatcher');
      assert.deepEqual(await processing.leftovers(), []);
      await processing.stop();
      processing = await startTestJobProcessing(engines, { beatmapDirs: [madeOsuFixturesDir()] });
      const done = await waitForJob(getJob(id), finished);
      assert.equal(done.status, 'completed', done.error ?? '');
      assert.match((await engines.ctx.store.get(`logs/${id}.log`)).toString(), /taken by/);
    });

    test('a render past its timeout fails and its temp folder is removed', async () => {
      await processing.stop();
      processing = await startTestJobProcessing(engines, {
        beatmapDirs: [madeOsuFixturesDir()],
        worker: { renderTimeoutMs: 150, width: 640, height: 360, fps: 60 },
      });
      const id = (
        await submit(app, { address: freshAddress(), replay: readFixture('perfect.osr') })
      ).json().job_id;
      const job = await waitForJob(getJob(id), finished);
      assert.equal(job.status, 'failed');
      assert.equal(job.error, 'Render timed out after 0.15 seconds.');
      assert.deepEqual(await processing.leftovers(), []);
    });
  });
}
