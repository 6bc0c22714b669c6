/**
 * POST /v1/render: every row of the admission table and of the error table, on the
 * embedded engines and on PostgreSQL + Redis + S3.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { ObjectStore } from '@platform/core';
import { buildTestApp, submit } from '../helpers/app.js';
import { corruptLzma, readFixture } from '../helpers/fixtures.js';
import {
  delegatingStore,
  engineSets,
  freshAddress,
  openTestEngines,
  type TestEngines,
} from '../helpers/harness.js';
import { getJob } from '../../src/jobs/job-store.js';

async function countRows(engines: TestEngines) {
  const jobs = await engines.ctx.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM render_jobs',
  );
  const events = await engines.ctx.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM render_outbox',
  );
  return { jobs: Number(jobs.rows[0]!.n), events: Number(events.rows[0]!.n) };
}

const INVALID = 'Invalid replay file. The structure is corrupted or unsupported.';
const EXTENSION = 'File must be an osu! replay (.osr) file.';

for (const { kind, skip } of await engineSets()) {
  describe(`POST /v1/render (${kind})`, { skip }, () => {
    let engines: TestEngines;
    let app: FastifyInstance;
    let tool: Buffer;
    before(async () => {
      engines = await openTestEngines(kind, { maxQueued: 1000, maxRendering: 1000 });
      app = await buildTestApp(engines);
      tool = readFixture('perfect.osr');
    });
    after(async () => {
      await app?.close();
      await engines?.close();
    });

    test('accepts a replay: 202, job queued with its outbox event and stored replay, defaults applied', async () => {
      const res = await submit(app, { address: freshAddress(), replay: tool });
      assert.equal(res.statusCode, 202, res.body);
      const body = res.json();
      assert.match(body.job_id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      assert.equal(body.status, 'queued');
      assert.equal(body.links.status, `/v1/jobs/${body.job_id}`);
      assert.equal(res.headers['x-ratelimit-limit'], '5');
      assert.equal(res.headers['x-ratelimit-remaining'], '4');
      const events = await engines.ctx.db.query('SELECT * FROM render_outbox WHERE job_id = $1', [
        body.job_id,
      ]);
      assert.equal(events.rows.length, 1);
      assert.deepEqual(await engines.ctx.store.get(`replays/${body.job_id}.osr`), tool);
      const job = (await app.inject(`/v1/jobs/${body.job_id}`)).json();
      assert.equal(job.skin, 'Default');
      assert.deepEqual(job.options, {
        resolution: '1080p',
        bg_dim: 0.95,
        motion_blur: true,
        storyboard: true,
        video: false,
        snaking_in: true,
        snaking_out: true,
        hit_error_meter: true,
        key_overlay: true,
        music_volume: 100,
        hitsound_volume: 100,
        hp_bar: true,
        unstable_rate: true,
        hit_counter: false,
        pp_counter: true,
        results_screen: true,
        hit_lighting: false,
        use_beatmap_skin: false,
        use_beatmap_colours: true,
        cursor_size: 1,
        intro_bg_dim: 0,
        break_bg_dim: 0.3,
        fps: 60,
      });
      assert.match(job.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
      assert.ok(job.replay.player_name.length > 0);
      assert.equal(job.links.replay, `/v1/artifacts/replays/${body.job_id}.osr`);
    });

    test('a skin that is not stored → 422 at admission; nothing written, no replay kept', async () => {
      const res = await submit(app, {
        address: freshAddress(),
        replay: tool,
        fields: { skin: 'Nobody Uploaded This' },
      });
      assert.equal(res.statusCode, 422);
      assert.deepEqual(res.json(), {
        detail: 'validation error',
        code: 'RENDER_VALIDATION',
        errors: [
          {
            field: 'skin',
            message: 'no skin named "Nobody Uploaded This" is stored (GET /v1/skins lists them)',
          },
        ],
      });
      const before = await countRows(engines);
      assert.equal(
        (await submit(app, { address: freshAddress(), replay: tool, fields: { skin: 'nope' } }))
          .statusCode,
        422,
      );
      assert.deepEqual(await countRows(engines), before);
    });

    test('options are read: 4k, bg_dim 95 becomes 0.95, booleans', async () => {
      await engines.ctx.store.put('skins/My Skin_2-x.osk', Buffer.from('PK stored skin'));
      const res = await submit(app, {
        address: freshAddress(),
        replay: tool,
        fields: {
          skin: 'My Skin_2-x',
          resolution: '4k',
          bg_dim: '95',
          motion_blur: 'false',
          video: 'true',
          key_overlay: '0',
        },
      });
      assert.equal(res.statusCode, 202, res.body);
      const job = (await app.inject(`/v1/jobs/${res.json().job_id}`)).json();
      assert.equal(job.skin, 'My Skin_2-x');
      assert.equal(job.options.resolution, '4k');
      assert.equal(job.options.bg_dim, 0.95);
      assert.equal(job.options.motion_blur, false);
      assert.equal(job.options.video, true);
      assert.equal(job.options.key_overlay, false);
    });

    test('the extra parameters (volumes, overlays, cursor, dims, fps) are read, stored and shown', async () => {
      const res = await submit(app, {
        address: freshAddress(),
        replay: tool,
        fields: {
          music_volume: '40',
          hitsound_volume: '0',
          hit_counter: 'true',
          pp_counter: 'false',
          results_screen: 'no',
          use_beatmap_skin: '1',
          cursor_size: '1.5',
          intro_bg_dim: '50',
          break_bg_dim: '0.1',
          fps: '30',
        },
      });
      assert.equal(res.statusCode, 202, res.body);
      const { job_id } = res.json();
      const job = (await app.inject(`/v1/jobs/${job_id}`)).json();
      assert.deepEqual(
        [
          job.options.music_volume,
          job.options.hitsound_volume,
          job.options.hit_counter,
          job.options.pp_counter,
          job.options.results_screen,
          job.options.use_beatmap_skin,
          job.options.cursor_size,
          job.options.intro_bg_dim,
          job.options.break_bg_dim,
          job.options.fps,
          job.options.hp_bar,
        ],
        [40, 0, true, false, false, true, 1.5, 0.5, 0.1, 30, true],
      );
      // The worker hands the stored options to the renderer as they are.
      const { options } = (await getJob(engines.ctx.db, job_id))!;
      assert.equal(options.musicVolume, 40);
      assert.equal(options.introBgDim, 0.5);
      assert.equal(options.fps, 30);
    });

    test('bad extra parameters → 422 naming each field; nothing written', async () => {
      const before = await countRows(engines);
      const res = await submit(app, {
        address: freshAddress(),
        replay: tool,
        fields: {
          music_volume: '101',
          hitsound_volume: '12.5',
          hp_bar: 'maybe',
          cursor_size: '3',
          break_bg_dim: '-1',
          fps: '144',
        },
      });
      assert.equal(res.statusCode, 422);
      assert.deepEqual(res.json(), {
        detail: 'validation error',
        code: 'RENDER_VALIDATION',
        errors: [
          { field: 'music_volume', message: 'must be a whole number from 0 to 100' },
          { field: 'hitsound_volume', message: 'must be a whole number from 0 to 100' },
          { field: 'hp_bar', message: 'must be true or false' },
          { field: 'cursor_size', message: 'must be a number from 0.5 to 2' },
          {
            field: 'break_bg_dim',
            message: 'must be a number from 0.0 to 1.0 (values above 1 are read as percent)',
          },
          { field: 'fps', message: 'must be one of 30, 60' },
        ],
      });
      assert.deepEqual(await countRows(engines), before);
    });

    const badRequests: [string, () => Parameters<typeof submit>[1], number, string][] = [
      ['no replay file', () => ({ address: freshAddress() }), 400, EXTENSION],
      [
        'wrong extension',
        () => ({ address: freshAddress(), replay: tool, filename: 'play.txt' }),
        400,
        EXTENSION,
      ],
      [
        'empty file',
        () => ({ address: freshAddress(), replay: Buffer.alloc(0) }),
        400,
        'Uploaded replay file is empty.',
      ],
      [
        'truncated replay',
        () => ({ address: freshAddress(), replay: tool.subarray(0, 60) }),
        415,
        INVALID,
      ],
      [
        'truncated frames',
        () => ({ address: freshAddress(), replay: tool.subarray(0, tool.length - 200) }),
        415,
        INVALID,
      ],
      [
        'bad LZMA stream',
        () => ({ address: freshAddress(), replay: corruptLzma(tool) }),
        415,
        INVALID,
      ],
      [
        'random bytes',
        () => ({ address: freshAddress(), replay: Buffer.from('not a replay at all, just text') }),
        415,
        INVALID,
      ],
      [
        'taiko replay',
        () => ({ address: freshAddress(), replay: readFixture('taiko.osr') }),
        415,
        INVALID,
      ],
      [
        'catch replay',
        () => ({ address: freshAddress(), replay: readFixture('catch.osr') }),
        415,
        INVALID,
      ],
      [
        'mania replay',
        () => ({ address: freshAddress(), replay: readFixture('mania.osr') }),
        415,
        INVALID,
      ],
      [
        'bad skin name',
        () => ({ address: freshAddress(), replay: tool, fields: { skin: '../etc' } }),
        422,
        'validation error',
      ],
      [
        'bad resolution',
        () => ({ address: freshAddress(), replay: tool, fields: { resolution: '720p' } }),
        422,
        'validation error',
      ],
      [
        'bg_dim out of range',
        () => ({ address: freshAddress(), replay: tool, fields: { bg_dim: '950' } }),
        422,
        'validation error',
      ],
      [
        'bg_dim negative',
        () => ({ address: freshAddress(), replay: tool, fields: { bg_dim: '-0.1' } }),
        422,
        'validation error',
      ],
      [
        'bg_dim not a number',
        () => ({ address: freshAddress(), replay: tool, fields: { bg_dim: 'dark' } }),
        422,
        'validation error',
      ],
      [
        'bad boolean',
        () => ({ address: freshAddress(), replay: tool, fields: { storyboard: 'maybe' } }),
        422,
        'validation error',
      ],
      // The first failing check wins.
      [
        'extension before skin',
        () => ({
          address: freshAddress(),
          replay: tool,
          filename: 'x.osz',
          fields: { skin: '!!' },
        }),
        400,
        EXTENSION,
      ],
      [
        'structure before skin',
        () => ({ address: freshAddress(), replay: tool.subarray(0, 10), fields: { skin: '!!' } }),
        415,
        INVALID,
      ],
    ];
    for (const [name, make, status, detail] of badRequests) {
      test(`${name} → ${status}`, async () => {
        const before = await countRows(engines);
        const res = await submit(app, make());
        assert.equal(res.statusCode, status, res.body);
        assert.equal(res.json().detail, detail);
        assert.deepEqual(await countRows(engines), before, 'nothing written');
      });
    }

    test('malformed multipart bodies → 400, never a 500', async () => {
      const bodies: [string, string][] = [
        ['multipart/form-data', 'garbage'],
        ['multipart/form-data; boundary=xyz', 'garbage without the boundary'],
        [
          'multipart/form-data; boundary=xyz',
          '--xyz\r\nContent-Disposition: form-data; name="replay"; filename="a.osr"\r\n\r\nabc',
        ],
      ];
      for (const [contentType, payload] of bodies) {
        const res = await app.inject({
          method: 'POST',
          url: '/v1/render',
          payload,
          headers: { 'content-type': contentType, 'edge-connecting-ip': freshAddress() },
        });
        assert.equal(res.statusCode, 400, `${contentType}: ${res.body}`);
        assert.ok(
          ['Malformed multipart/form-data body.', EXTENSION].includes(res.json().detail),
          res.body,
        );
      }
    });

    test('422 names the offending fields', async () => {
      const res = await submit(app, {
        address: freshAddress(),
        replay: tool,
        fields: { skin: 'a/b', resolution: '8k' },
      });
      assert.equal(res.statusCode, 422);
      assert.deepEqual(
        res.json().errors.map((e: { field: string }) => e.field),
        ['skin', 'resolution'],
      );
    });

    test('validation failures do not spend the budget; the 6th request in a minute is 429 with headers', async () => {
      const address = freshAddress();
      for (let i = 0; i < 3; i += 1)
        assert.equal(
          (await submit(app, { address, replay: tool, fields: { skin: '%' } })).statusCode,
          422,
        );
      const statuses: number[] = [];
      for (let i = 0; i < 5; i += 1)
        statuses.push((await submit(app, { address, replay: tool })).statusCode);
      assert.deepEqual(statuses, [202, 202, 429, 429, 429]);
      const limited = await submit(app, { address, replay: tool });
      assert.equal(limited.statusCode, 429);
      assert.equal(limited.json().detail, 'Rate limit exceeded: 5 per 1 minute');
      const retryAfter = Number(limited.headers['retry-after']);
      assert.equal(retryAfter, 59, 'the counters are pinned one second into a minute');
      assert.equal(limited.headers['x-ratelimit-limit'], '5');
      assert.equal(limited.headers['x-ratelimit-remaining'], '0');
      assert.equal(
        Number(limited.headers['x-ratelimit-reset']),
        (engines.counterClockMs - 1000 + 60_000) / 1000,
      );
    });

    test('legacy POST /render shares the budget of /v1/render', async () => {
      const address = freshAddress();
      for (let i = 0; i < 3; i += 1) await submit(app, { address, replay: tool });
      for (let i = 0; i < 2; i += 1) await submit(app, { address, replay: tool, path: '/render' });
      const sixth = await submit(app, { address, replay: tool, path: '/render' });
      assert.equal(sixth.statusCode, 429);
      assert.equal(sixth.json().detail, 'Rate limit exceeded: 5 per 1 minute');
    });

    test('third active job from one address → 429; a finished job frees a slot', async () => {
      const address = freshAddress();
      assert.equal((await submit(app, { address, replay: tool })).statusCode, 202);
      assert.equal((await submit(app, { address, replay: tool })).statusCode, 202);
      const third = await submit(app, { address, replay: tool });
      assert.equal(third.statusCode, 429);
      assert.equal(third.json().detail, 'You already have 2 active render jobs.');
      await engines.ctx.db.query(
        `UPDATE render_jobs SET status = 'completed' WHERE id = (SELECT id FROM render_jobs WHERE client_ip = $1 LIMIT 1)`,
        [address],
      );
      assert.equal((await submit(app, { address, replay: tool })).statusCode, 202);
    });
  });

  describe(`POST /v1/render capacity and storage (${kind})`, { skip }, () => {
    let engines: TestEngines;
    let app: FastifyInstance;
    let failPuts = false;
    before(async () => {
      engines = await openTestEngines(
        kind,
        { maxQueued: 3, maxRendering: 1 },
        {
          store: (inner): ObjectStore =>
            delegatingStore(inner, {
              put: async (...args) => {
                if (failPuts) throw new Error('storage is down');
                return inner.put(...args);
              },
            }),
        },
      );
      app = await buildTestApp(engines);
    });
    after(async () => {
      await app?.close();
      await engines?.close();
    });

    test('replay upload failure → 500, and neither job nor event is left behind', async () => {
      failPuts = true;
      try {
        const res = await submit(app, {
          address: freshAddress(),
          replay: readFixture('perfect.osr'),
        });
        assert.equal(res.statusCode, 500);
        assert.ok(!res.body.includes('storage is down'), 'no internals leaked');
        assert.deepEqual(await countRows(engines), { jobs: 0, events: 0 });
      } finally {
        failPuts = false;
      }
    });

    test('MAX_QUEUED queued jobs → 503 queue full; MAX_RENDERING busy → 503 capacity', async () => {
      const tool = readFixture('perfect.osr');
      for (let i = 0; i < 3; i += 1)
        assert.equal(
          (await submit(app, { address: freshAddress(), replay: tool })).statusCode,
          202,
        );
      const full = await submit(app, { address: freshAddress(), replay: tool });
      assert.equal(full.statusCode, 503);
      assert.equal(
        full.json().detail,
        'The render queue is currently full. Please try again later.',
      );
      await engines.ctx.db.query(
        `UPDATE render_jobs SET status = 'rendering' WHERE id = (SELECT id FROM render_jobs LIMIT 1)`,
      );
      const busy = await submit(app, { address: freshAddress(), replay: tool });
      assert.equal(busy.statusCode, 503);
      assert.equal(busy.json().detail, 'The render infrastructure is at maximum capacity.');
      assert.equal(
        (await submit(app, { address: freshAddress(), replay: Buffer.alloc(0) })).statusCode,
        400,
      );
    });

    test('a replay above MAX_REPLAY_SIZE_MB → 413 with the spec detail', async () => {
      const big = Buffer.alloc(50 * 1024 * 1024 + 10, 1);
      const res = await submit(app, { address: freshAddress(), replay: big });
      assert.equal(res.statusCode, 413);
      assert.equal(res.json().detail, 'Replay file exceeds maximum size of 50MB.');
    });
  });
}
