import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, test } from 'node:test';
import { zipSync } from 'fflate';
import { extractOsk } from '../../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'osu-osk-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const osk = join(dir, 'skin.osk');
writeFileSync(
  osk,
  zipSync({
    'skin.ini': new TextEncoder().encode('[General]\nName: t\n'),
    'cursor.png': new Uint8Array([1, 2, 3]),
    '../escape.png': new Uint8Array([4]),
  }),
);

test('extractOsk: a target written "./dir" or "dir/" receives the files, and no entry escapes it', async () => {
  for (const target of [`./${relative(process.cwd(), join(dir, 'a'))}`, `${join(dir, 'b')}/`]) {
    assert.equal(await extractOsk(osk, target), target);
    assert.deepEqual(readdirSync(target).sort(), ['cursor.png', 'skin.ini'], target);
    assert.deepEqual([...readFileSync(join(target, 'cursor.png'))], [1, 2, 3]);
  }
  assert.deepEqual(readdirSync(dir).sort(), ['a', 'b', 'skin.osk']);
});
