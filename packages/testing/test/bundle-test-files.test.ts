// `bundleTestFiles` (what `scripts/run-tests.mjs` runs every test file from): one bundle a
// file, named after it, shared modules in a chunk, and each source file's own
// `import.meta.url` where it is code (not where a string spells it).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { bundleTestFiles } from '../src/bundled-entry.js';

// Spelt in two parts where it is text: this file runs from a bundle too (see IMPORT_META_URL).
const IMPORT_META = 'import.meta';

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'bundle-test-files-'));
  await mkdir(join(root, 'lib'));
  await mkdir(join(root, 'test', 'deep'), { recursive: true });
  await writeFile(
    join(root, 'lib', 'where.ts'),
    [
      `export const where: string = ${IMPORT_META}.url;`,
      "export const spelt: string = 'import.meta.url';",
    ].join('\n'),
  );
  for (const [file, from] of [
    ['test/a.test.ts', '../lib/where.js'],
    ['test/deep/b.test.ts', '../../lib/where.js'],
  ] as const)
    await writeFile(
      join(root, file),
      [
        `import { where, spelt } from '${from}';`,
        `console.log(JSON.stringify({ where, spelt, self: ${IMPORT_META}.url }));`,
      ].join('\n'),
    );
});
after(() => rm(root, { recursive: true, force: true }));

test('one bundle a file, named after it, runs with plain node and keeps each source URL', async () => {
  const outDir = join(root, 'out');
  const files = [join(root, 'test', 'a.test.ts'), join(root, 'test', 'deep', 'b.test.ts')];
  const bundles = await bundleTestFiles(files, root, outDir);
  assert.deepEqual(bundles, [
    join(outDir, 'test', 'a.test.mjs'),
    join(outDir, 'test', 'deep', 'b.test.mjs'),
  ]);
  const chunks = readdirSync(outDir).filter((name) => name.endsWith('.mjs'));
  assert.equal(chunks.length, 1, `the shared module in one chunk: ${chunks.join(', ')}`);
  for (const [index, bundle] of bundles.entries()) {
    assert.ok(existsSync(bundle), bundle);
    const printed = JSON.parse(execFileSync(process.execPath, [bundle], { encoding: 'utf8' }));
    assert.deepEqual(printed, {
      where: pathToFileURL(join(root, 'lib', 'where.ts')).href,
      spelt: 'import.meta.url',
      self: pathToFileURL(files[index]!).href,
    });
  }
});
