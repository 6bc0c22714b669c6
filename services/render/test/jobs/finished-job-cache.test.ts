/** Finished jobs answered from memory: only finished, unremoved ones; dropped on removal and after the TTL. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createFinishedJobCache, forgetFinishedJobs } from '../../src/jobs/finished-job-cache.js';
import type { JobRow } from '../../src/jobs/job-store.js';

const row = (id: string, status: JobRow['status'], removal: JobRow['removal'] = null) =>
  ({ id, status, removal }) as JobRow;

test('finished jobs are kept; active and removed ones never are', () => {
  const cache = createFinishedJobCache();
  for (const status of ['queued', 'downloading', 'rendering'] as const) {
    cache.offer(row(status, status));
    assert.equal(cache.get(status), undefined, status);
  }
  cache.offer(row('gone', 'completed', 'deleted'));
  assert.equal(cache.get('gone'), undefined);
  const done = row('done', 'completed');
  const failed = row('failed', 'failed');
  cache.offer(done);
  cache.offer(failed);
  assert.equal(cache.get('done'), done);
  assert.equal(cache.get('failed'), failed);
});

test('entries end after the TTL and on any removal made by this process', () => {
  let clock = 1_000;
  const cache = createFinishedJobCache({ ttlMs: 2000, now: () => clock });
  cache.offer(row('a', 'completed'));
  clock += 1999;
  assert.ok(cache.get('a'));
  clock += 1;
  assert.equal(cache.get('a'), undefined, 'past the TTL');
  cache.offer(row('b', 'completed'));
  forgetFinishedJobs();
  assert.equal(cache.get('b'), undefined, 'a removal empties the cache');
});

test('the oldest entry makes room past maxEntries; the v1 JSON is made once per cached row', () => {
  const cache = createFinishedJobCache({ maxEntries: 2 });
  const a = row('a', 'completed');
  cache.offer(a);
  cache.offer(row('b', 'completed'));
  cache.offer(row('c', 'completed'));
  assert.equal(cache.get('a'), undefined);
  assert.ok(cache.get('b') && cache.get('c'));
  let renders = 0;
  const render = (j: JobRow) => `{"job_id":"${j.id}","n":${(renders += 1)}}`;
  const c = cache.get('c')!;
  assert.equal(cache.v1Json(c, render), '{"job_id":"c","n":1}');
  assert.equal(cache.v1Json(c, render), '{"job_id":"c","n":1}');
  assert.equal(
    cache.v1Json(a, render),
    '{"job_id":"a","n":2}',
    'an uncached row is rendered each time',
  );
  assert.equal(renders, 2);
});
