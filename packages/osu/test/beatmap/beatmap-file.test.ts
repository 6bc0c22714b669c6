import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileIn, pathInFolder } from '../../src/beatmap/beatmap-file.js';

const root = mkdtempSync(join(tmpdir(), 'osu-beatmap-file-test-'));
const folder = join(root, 'map');
mkdirSync(join(folder, 'SB'), { recursive: true });
writeFileSync(join(folder, 'Audio.MP3'), 'a');
writeFileSync(join(folder, 'SB', 'Star.png'), 'b');
writeFileSync(join(root, 'secret.txt'), 'c');
after(() => rmSync(root, { recursive: true, force: true }));

describe('beatmap file names', () => {
  test('names inside the folder resolve, case-insensitively, with either slash', async () => {
    assert.equal(await fileIn(folder, 'audio.mp3'), join(folder, 'Audio.MP3'));
    assert.equal(await fileIn(folder, 'SB\\star.png'), join(folder, 'SB', 'Star.png'));
    assert.equal(await fileIn(folder, 'missing.png'), undefined);
  });

  test('names that leave the folder never resolve', async () => {
    for (const name of [
      '../secret.txt',
      '..\\secret.txt',
      'SB/../../secret.txt',
      join(root, 'secret.txt'),
      '/etc/passwd',
      'C:\\Windows\\win.ini',
      'a\0b',
      '..',
    ]) {
      assert.equal(await fileIn(folder, name), undefined, name);
      assert.equal(pathInFolder(folder, name), undefined, name);
    }
  });
});
