import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli, type CliIo } from '../src/cli.js';

function capture(env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (l) => out.push(l), err: (l) => err.push(l), env };
  return { io, out, err };
}

describe('analytics CLI', () => {
  const dirs: string[] = [];
  after(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  it('generate then build prints each step with row counts and timings', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'analytics-cli-'));
    dirs.push(dir);
    const gen = capture();
    assert.equal(
      await runCli(
        ['generate', '--out', join(dir, 'src'), '--orders', '300', '--seed', '3'],
        gen.io,
      ),
      0,
    );
    assert.match(gen.out.join('\n'), /olist_orders_dataset\.csv\s+300 rows/);
    const build = capture({ DATA_DIR: join(dir, 'data') });
    assert.equal(await runCli(['build', '--source', join(dir, 'src')], build.io), 0);
    const text = build.out.join('\n');
    for (const step of ['bronze', 'silver', 'gold', 'quality', 'views'])
      assert.match(text, new RegExp(`^${step}\\s+\\d+ ms`, 'm'));
    assert.match(text, /bronze\.orders=300/);
    assert.ok(existsSync(join(dir, 'data', 'analytics', 'raw_data.duckdb')));
  });

  it('bad usage exits 2 with the usage text; a failed build exits 1 naming the problem', async () => {
    const a = capture();
    assert.equal(await runCli(['build'], a.io), 2);
    assert.match(a.err.join('\n'), /build needs --source DIR/);
    const b = capture();
    assert.equal(await runCli(['generate', '--out', '/tmp/x', '--orders', 'many'], b.io), 2);
    assert.match(b.err.join('\n'), /--orders expects an integer/);
    const c = capture();
    assert.equal(await runCli(['frobnicate'], c.io), 2);
    const dir = await mkdtemp(join(tmpdir(), 'analytics-cli-'));
    dirs.push(dir);
    const d = capture({ DATA_DIR: dir });
    assert.equal(await runCli(['build', '--source', join(dir, 'nowhere')], d.io), 1);
    assert.match(d.err.join('\n'), /missing source file: olist_orders_dataset\.csv/);
  });
});
