/** Skin list and upload: every check of the table with crafted archives, and safe extraction. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import {
  inspectSkinArchive,
  SkinArchiveError,
  DEFAULT_SKIN_LIMITS,
} from '../../src/skins/skin-archive.js';
import { buildTestApp } from '../helpers/app.js';
import {
  engineSets,
  freshAddress,
  multipart,
  openTestEngines,
  type TestEngines,
} from '../helpers/harness.js';
import { goodSkinEntries, makeZip, patchBytes } from '../helpers/zips.js';

function upload(
  app: FastifyInstance,
  filename: string,
  data: Buffer,
  address = freshAddress(),
  path = '/v1/skins/upload',
) {
  const { body, contentType } = multipart({}, [{ field: 'skin', filename, data }]);
  return app.inject({
    method: 'POST',
    url: path,
    payload: body,
    headers: { 'content-type': contentType, 'edge-connecting-ip': address },
  });
}

for (const { kind, skip } of await engineSets()) {
  describe(`skins (${kind})`, { skip }, () => {
    let engines: TestEngines;
    let app: FastifyInstance;
    before(async () => {
      engines = await openTestEngines(kind, { maxSkinSizeMb: 1, maxSkinUncompressedMb: 4 });
      app = await buildTestApp(engines);
    });
    after(async () => {
      await app?.close();
      await engines?.close();
    });

    test('upload a good skin: 200, listed, stored under skins/', async () => {
      const res = await upload(app, 'My Skin-1_x.osk', await makeZip(goodSkinEntries()));
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), {
        success: true,
        skin_name: 'My Skin-1_x',
        message: 'Skin "My Skin-1_x" uploaded successfully.',
      });
      assert.ok(await engines.ctx.store.exists('skins/My Skin-1_x.osk'));
      const list = (await app.inject('/v1/skins')).json();
      assert.deepEqual(list, { skins: ['Default', 'My Skin-1_x'] });
      assert.deepEqual((await app.inject('/skins')).json(), list);
    });

    test('a name that exists (any case, or Default) → 409, the stored skin untouched', async () => {
      const before = await engines.ctx.store.get('skins/My Skin-1_x.osk');
      const again = await upload(app, 'my skin-1_X.osk', await makeZip([{ name: 'skin.ini' }]));
      assert.equal(again.statusCode, 409);
      assert.match(again.json().detail, /already exists/);
      assert.deepEqual(await engines.ctx.store.get('skins/My Skin-1_x.osk'), before);
      assert.equal(
        (await upload(app, 'Default.osk', await makeZip([{ name: 'skin.ini' }]))).statusCode,
        409,
      );
    });

    const cases: [string, () => Promise<[string, Buffer]>, number, RegExp][] = [
      ['wrong extension', async () => ['skin.zip', await makeZip(goodSkinEntries())], 400, /\.osk/],
      ['no extension', async () => ['skin', await makeZip(goodSkinEntries())], 400, /\.osk/],
      [
        'too large',
        async () => ['big.osk', randomBytes(1024 * 1024 + 100)],
        413,
        /maximum size of 1MB/,
      ],
      [
        'not a ZIP',
        async () => ['fake.osk', Buffer.from('this is not a zip archive')],
        415,
        /not a ZIP/,
      ],
      ['empty file', async () => ['empty.osk', Buffer.alloc(0)], 415, /not a ZIP/],
      [
        'too many entries',
        async () => [
          'many.osk',
          await makeZip(
            Array.from({ length: 10_001 }, (_, i) => ({
              name: `f${i}`,
              data: Buffer.alloc(0),
              compress: false,
            })),
          ),
        ],
        422,
        /10001 entries/,
      ],
      [
        'zip bomb (ratio)',
        async () => [
          'bomb.osk',
          await makeZip([{ name: 'zeros.png', data: Buffer.alloc(3 * 1024 * 1024) }]),
        ],
        422,
        /compression ratio/,
      ],
      [
        'total uncompressed size',
        async () => [
          'huge.osk',
          await makeZip(
            [1, 2, 3, 4, 5]
              .map((i) => ({
                name: `r${i}.png`,
                data: Buffer.alloc(1024 * 1024, i),
                compress: true,
              }))
              .concat([{ name: 'pad.bin', data: randomBytes(200 * 1024), compress: false }]),
          ),
        ],
        422,
        /expands to/,
      ],
      [
        'too deep',
        async () => ['deep.osk', await makeZip([{ name: 'a/b/c/d/e.png' }])],
        422,
        /deeper than 3/,
      ],
      [
        'deep folder entry',
        async () => ['deepdir.osk', await makeZip([{ name: 'a/b/c/d/' }])],
        422,
        /deeper than 3/,
      ],
      [
        'nested zip',
        async () => [
          'nested.osk',
          await makeZip([
            { name: 'skin.ini' },
            { name: 'inner.zip', data: await makeZip([{ name: 'x' }]) },
          ]),
        ],
        422,
        /nested archive/,
      ],
      [
        'nested osk',
        async () => ['nested2.osk', await makeZip([{ name: 'extra/other.OSK' }])],
        422,
        /nested archive/,
      ],
      [
        'traversal name',
        async () => [
          'trav.osk',
          patchBytes(await makeZip([{ name: 'xx/evil.png' }]), 'xx/evil.png', '../evil.png'),
        ],
        422,
        /traversal/,
      ],
      [
        'absolute name',
        async () => [
          'abs.osk',
          patchBytes(await makeZip([{ name: 'xetc/passwd' }]), 'xetc/passwd', '/etc/passwd'),
        ],
        422,
        /absolute/,
      ],
      [
        'backslash name',
        async () => [
          'bs.osk',
          patchBytes(await makeZip([{ name: 'a_evil.png' }]), 'a_evil.png', 'a\\evil.png'),
        ],
        422,
        /backslash/,
      ],
      [
        'drive letter',
        async () => [
          'drv.osk',
          patchBytes(await makeZip([{ name: 'cx/win.ini' }]), 'cx/win.ini', 'C:/win.ini'),
        ],
        422,
        /absolute/,
      ],
      [
        'symlink',
        async () => [
          'link.osk',
          await makeZip([{ name: 'link.png', data: Buffer.from('/etc/passwd'), mode: 0o120777 }]),
        ],
        422,
        /symbolic link/,
      ],
      [
        'bad CRC',
        async () => [
          'crc.osk',
          patchBytes(
            await makeZip([
              { name: 'a.txt', data: Buffer.from('MARKER-CONTENT-1234'), compress: false },
            ]),
            'MARKER-CONTENT-1234',
            'MARKER-CONTENT-9999',
          ),
        ],
        422,
        /CRC mismatch/,
      ],
      [
        'truncated archive',
        async () => ['cut.osk', (await makeZip(goodSkinEntries())).subarray(0, 1500)],
        422,
        /not a readable ZIP|damaged|ZIP test/,
      ],
      [
        'bad skin name',
        async () => ['bad!name.osk', await makeZip([{ name: 'skin.ini' }])],
        422,
        /letters, digits/,
      ],
    ];
    for (const [name, make, status, detail] of cases) {
      test(`${name} → ${status}`, async () => {
        const [filename, data] = await make();
        const res = await upload(app, filename, data);
        assert.equal(res.statusCode, status, res.body);
        assert.match(res.json().detail, detail);
        assert.deepEqual(
          (await app.inject('/v1/skins')).json().skins,
          ['Default', 'My Skin-1_x'],
          'nothing stored',
        );
      });
    }

    test('a malformed multipart body → 400', async () => {
      const res = await app.inject({
        method: 'POST',
        url: '/v1/skins/upload',
        payload: '--xyz\r\nContent-Disposition: form-data; name="skin"; filename="a.osk"\r\n\r\nPK',
        headers: {
          'content-type': 'multipart/form-data; boundary=xyz',
          'edge-connecting-ip': freshAddress(),
        },
      });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().detail, 'Malformed multipart/form-data body.');
    });

    test('rate limits: v1 2 per minute, legacy 5 per minute, with headers', async () => {
      const address = freshAddress();
      const bad = Buffer.from('nope');
      assert.equal((await upload(app, 'a.osk', bad, address)).statusCode, 415);
      assert.equal((await upload(app, 'a.osk', bad, address)).statusCode, 415);
      const third = await upload(app, 'a.osk', bad, address);
      assert.equal(third.statusCode, 429);
      assert.equal(third.json().detail, 'Rate limit exceeded: 2 per 1 minute');
      assert.ok(Number(third.headers['retry-after']) >= 1);
      assert.equal(third.headers['x-ratelimit-limit'], '2');
      const legacy = freshAddress();
      for (let i = 0; i < 5; i += 1)
        assert.equal((await upload(app, 'a.osk', bad, legacy, '/skins/upload')).statusCode, 415);
      const sixth = await upload(app, 'a.osk', bad, legacy, '/skins/upload');
      assert.equal(sixth.statusCode, 429);
      assert.equal(sixth.json().detail, 'Rate limit exceeded: 5 per 1 minute');
    });

    test('v1 and legacy spend one budget: at most 5 uploads a minute in all, 2 of them on v1', async () => {
      const bad = Buffer.from('nope');
      const codes = async (address: string, paths: string[]) => {
        const out: number[] = [];
        for (const path of paths)
          out.push((await upload(app, 'a.osk', bad, address, path)).statusCode);
        return out;
      };
      const V1 = '/v1/skins/upload';
      const OLD = '/skins/upload';
      // Legacy first: its five use the whole budget, so v1 is refused too.
      assert.deepEqual(
        await codes(freshAddress(), [OLD, OLD, OLD, OLD, OLD, V1]),
        [415, 415, 415, 415, 415, 429],
      );
      // v1 first: two on v1, then three more on legacy, then nothing on either.
      assert.deepEqual(
        await codes(freshAddress(), [V1, V1, V1, OLD, OLD, OLD]),
        [415, 415, 429, 415, 415, 429],
      );
    });
  });
}

describe('skin extraction', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'render-extract-test-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('a good archive extracts under the target only', async () => {
    const archive = join(dir, 'good.osk');
    const data = await makeZip(goodSkinEntries());
    await writeFile(archive, data);
    const target = join(dir, 'good');
    const summary = await inspectSkinArchive(archive, data.length, DEFAULT_SKIN_LIMITS, target);
    assert.equal(summary.files, 4);
    assert.equal(
      await readFile(join(target, 'skin.ini'), 'utf8'),
      '[General]\nName: Test Skin\nAuthor: tests\n',
    );
    assert.ok(existsSync(join(target, 'a/b/c/deep-ok.png')));
    assert.deepEqual((await readdir(dir)).sort(), ['good', 'good.osk']);
  });

  test('a traversal entry is refused before anything is written outside', async () => {
    const data = patchBytes(
      await makeZip([{ name: 'ok.txt' }, { name: 'xx/evil.txt' }]),
      'xx/evil.txt',
      '../evil.txt',
    );
    const archive = join(dir, 'evil.osk');
    await writeFile(archive, data);
    const target = join(dir, 'evil');
    await assert.rejects(
      inspectSkinArchive(archive, data.length, DEFAULT_SKIN_LIMITS, target),
      (e: unknown) => e instanceof SkinArchiveError && e.problem === 'name',
    );
    assert.equal(existsSync(join(dir, 'evil.txt')), false);
  });
});
