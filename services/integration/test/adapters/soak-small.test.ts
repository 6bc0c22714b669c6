/**
 * The soak of `bench/soak.ts` at a size the suite can afford: events through the SQL log
 * on PGlite (the embedded default) while the relational adapter is paused and resumed
 * and the csv adapter restarted; every target must hold every event exactly once, with
 * the updates of each key applied in order.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runSoak } from '../../bench/soak-core.js';

describe('soak (small)', () => {
  it('delivers 300 events exactly once and in per-key order to all three adapters', async () => {
    const result = await runSoak({
      driver: 'sql-log-pglite',
      records: 300,
      csvDurable: true,
      timeoutMs: 90_000,
    });
    assert.equal(result.records, 300);
    assert.deepEqual(result.problems, []);
  });
});
