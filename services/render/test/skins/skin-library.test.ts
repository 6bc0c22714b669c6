/** Stored skins extracted for a render: a stored one with every check, an absent one refused. */
import assert from 'node:assert/strict';
import { readFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_SKIN_LIMITS } from '../../src/skins/skin-archive.js';
import { extractStoredSkin, skinKey } from '../../src/skins/skin-library.js';
import { engineSets, openTestEngines, type TestEngines } from '../helpers/harness.js';
import { goodSkinEntries, makeZip } from '../helpers/zips.js';

for (const { kind, skip } of await engineSets()) {
  describe(`stored skins (${kind})`, { skip }, () => {
    let engines: TestEngines;
    let dir: string;
    before(async () => {
      engines = await openTestEngines(kind);
      dir = await mkdtemp(join(tmpdir(), 'render-skin-library-test-'));
      await engines.ctx.store.put(skinKey('Stored'), await makeZip(goodSkinEntries()));
      const wrapped = goodSkinEntries()
        .filter((entry) => !entry.name.startsWith('a/')) // the wrapper folder counts towards the depth limit
        .map((entry) => ({ ...entry, name: `My Skin/${entry.name}` }));
      await engines.ctx.store.put(
        skinKey('Wrapped'),
        await makeZip([{ name: 'My Skin/', data: Buffer.alloc(0) }, ...wrapped]),
      );
    });
    after(async () => {
      await engines?.close();
      await rm(dir, { recursive: true, force: true });
    });

    test('a stored skin is extracted into the folder', async () => {
      const target = join(dir, 'stored');
      assert.equal(
        await extractStoredSkin(engines.ctx.store, 'Stored', target, DEFAULT_SKIN_LIMITS),
        true,
      );
      assert.equal(
        await readFile(join(target, 'skin.ini'), 'utf8'),
        '[General]\nName: Test Skin\nAuthor: tests\n',
      );
    });

    test('a skin zipped inside its folder is extracted without that folder, skin.ini at the top', async () => {
      const target = join(dir, 'wrapped');
      assert.equal(
        await extractStoredSkin(engines.ctx.store, 'Wrapped', target, DEFAULT_SKIN_LIMITS),
        true,
      );
      assert.equal(
        await readFile(join(target, 'skin.ini'), 'utf8'),
        '[General]\nName: Test Skin\nAuthor: tests\n',
      );
      assert.deepEqual((await readdir(target)).sort(), ['hitcircle.png', 'skin.ini', 'sounds']);
    });

    test('a skin that is not stored gives false and writes nothing', async () => {
      const target = join(dir, 'absent');
      assert.equal(
        await extractStoredSkin(engines.ctx.store, 'Absent', target, DEFAULT_SKIN_LIMITS),
        false,
      );
      assert.deepEqual((await readdir(dir)).sort(), ['stored', 'wrapped']);
    });
  });
}
