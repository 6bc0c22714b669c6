import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { SUPPORTED_NODE_RANGE, unsupportedNodeReason } from '../../../scripts/supported-node.mjs';

test('the releases of 20 and 22 that load ES modules through require() unflagged are supported', () => {
  for (const version of ['20.19.0', '20.20.2', '22.12.0', '22.21.1'])
    assert.equal(unsupportedNodeReason(version), undefined, version);
});

test('older releases of each line, Node 21 and the lines after 22 are refused with the range needed', () => {
  for (const version of [
    '18.20.8',
    '20.10.0',
    '20.18.3',
    '21.7.3',
    '22.0.0',
    '22.11.0',
    '23.0.0',
    '24.11.1',
  ]) {
    const reason = unsupportedNodeReason(version);
    assert.ok(reason, version);
    assert.ok(reason.startsWith(`Node.js ${version} cannot run the test suite`), reason);
    assert.ok(reason.includes(SUPPORTED_NODE_RANGE), reason);
  }
});

test("the root package.json's engines.node is the range the runner checks", () => {
  const manifest = JSON.parse(
    readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'),
  ) as { name: string; engines?: { node?: string } };
  assert.equal(manifest.name, 'replay-platform');
  assert.equal(manifest.engines?.node, SUPPORTED_NODE_RANGE);
});

test('plain node loads the ES-module-only packages Fastify requires, on this Node', () => {
  // What the range's first releases are for: on 20 before 20.19 and 22 before 22.12, this
  // require throws ERR_REQUIRE_ESM.
  const core = fileURLToPath(new URL('../../core/package.json', import.meta.url));
  const script =
    `const r = require('node:module').createRequire(${JSON.stringify(core)});` +
    "r('@fastify/static'); r('light-my-request'); console.log('loaded');";
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  assert.equal(run.stderr, '');
  assert.equal(run.stdout.trim(), 'loaded');
});
