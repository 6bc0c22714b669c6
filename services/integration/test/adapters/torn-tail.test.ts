/**
 * A short write on a full disk leaves part of a line at the end of an append-only file
 * (issue 21, the chaos run's disk-full fault: the csv journal lost acknowledged updates,
 * seed 5, 27 Nov). The csv journal and the webhook's delivered file cut such a tail
 * before they append again, so the next entry is a line of its own and survives the next
 * load. Here the tail is what a short write leaves (half of an entry, no newline). The
 * csv file's lock torn the same way (its owner's line half written) is stale, not an
 * error that keeps the csv target closed for good.
 */
import assert from 'node:assert/strict';
import { appendFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { acquireFileLock } from '../../src/adapters/csv/file-lock.js';
import { Journal } from '../../src/adapters/csv/journal.js';
import { cutTornTail } from '../../src/adapters/runtime/torn-tail.js';
import { DeliveredStore } from '../../src/adapters/webhook/delivered-store.js';

interface Entry {
  r: string;
  k: string;
}
const half = (entry: Entry) => {
  const line = JSON.stringify(entry);
  return line.slice(0, Math.floor(line.length / 2));
};

describe('torn tail of an append-only file', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'torn-tail-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('the csv journal keeps an entry appended after a short write, across the next reopen', async () => {
    const path = join(dir, 'journal.jsonl');
    const journal = new Journal<Entry>(path, true);
    assert.deepEqual(await journal.open(), []);
    await journal.append({ r: 'r1', k: 'k1' });
    // The disk filled mid-write: half of r2's line reached the file, and the append failed.
    await appendFile(path, half({ r: 'r2', k: 'k2' }));
    // After a failed write the journal is opened again before it takes another entry.
    assert.deepEqual(await journal.open(), [{ r: 'r1', k: 'k1' }]);
    await journal.append({ r: 'r2', k: 'k2' });
    await journal.append({ r: 'r3', k: 'k3' });
    assert.deepEqual(await journal.open(), [
      { r: 'r1', k: 'k1' },
      { r: 'r2', k: 'k2' },
      { r: 'r3', k: 'k3' },
    ]);
    await journal.close();
  });

  it('the webhook delivered file keeps a delivery recorded after a short write, across a restart', async () => {
    const folder = join(dir, 'webhook');
    const store = new DeliveredStore(folder);
    await store.add('a-1', 'r1');
    await appendFile(join(folder, 'a-1.delivered'), half({ r: 'r2', k: 'k2' }));
    const restarted = new DeliveredStore(folder);
    await restarted.add('a-1', 'r2');
    const again = new DeliveredStore(folder);
    assert.equal(await again.has('a-1', 'r1'), true);
    assert.equal(await again.has('a-1', 'r2'), true);
  });

  it('cuts only a partial last line: a whole file, an empty one and an absent one are left alone', async () => {
    const folder = join(dir, 'cut');
    await mkdir(folder);
    const whole = join(folder, 'whole');
    await appendFile(whole, 'a\nb\n');
    await cutTornTail(whole);
    assert.equal(await readFile(whole, 'utf8'), 'a\nb\n');
    const torn = join(folder, 'torn');
    await appendFile(torn, `a\n${'x'.repeat(70_000)}`);
    await cutTornTail(torn);
    assert.equal(await readFile(torn, 'utf8'), 'a\n');
    const noLine = join(folder, 'no-line');
    await appendFile(noLine, 'xyz');
    await cutTornTail(noLine);
    assert.equal(await readFile(noLine, 'utf8'), '');
    const empty = join(folder, 'empty');
    await appendFile(empty, '');
    await cutTornTail(empty);
    assert.equal(await readFile(empty, 'utf8'), '');
    await cutTornTail(join(folder, 'absent'));
  });
});

describe('csv file lock torn by a short write', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'torn-lock-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is stale: the next writer takes it over instead of failing to read it for ever', async () => {
    const target = join(dir, 'interns.csv');
    // What the chaos run's disk-full fault left (seed 22, 27 Nov): half of the owner's line.
    await appendFile(`${target}.lock`, `{"pid":${process.pid},"token":"5f3ca03c`);
    const lock = await acquireFileLock(target);
    assert.match(await readFile(`${target}.lock`, 'utf8'), /^\{"pid":\d+,"token":"[^"]+"\}$/);
    await lock.release();
    await assert.rejects(readFile(`${target}.lock`, 'utf8'), { code: 'ENOENT' });
  });
});
