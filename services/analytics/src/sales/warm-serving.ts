/**
 * Loads the serving data each read plans with (`Warehouse.perBuild`: the small views' rows,
 * the LTV segments index and the ranking's rows) before the app answers, instead of on the
 * first reads. Loaded lazily, the ranking (93,000 rows at 100,000 orders, turned into
 * objects chunk by chunk on the event loop) was read while the first LTV requests waited
 * behind it, and its objects' promotion to the old generation came with major GCs:
 * measured (bench, cached app, 27 Nov), the first cached LTV line cost 1.4–2.4 ms of
 * server CPU per request against 0.6 once loaded, p99 15–250 ms.
 *
 * The app runs it on each build before the warehouse switches to it (`beforeServing`), so
 * a rebuild's first reads find it loaded too, and on the build serving at start. A
 * warehouse not built yet is skipped (its first build is prepared when it opens); a failed
 * load is logged and leaves those reads to DuckDB, as `range-read.ts` does.
 */
import { isAppError, type Logger } from '@platform/core';
import type { Warehouse } from '../warehouse/warehouse.js';
import { READ_NAMES, READS } from './catalog.js';
import { loadHeldRanking } from './range-read.js';
import { readView } from './read-view.js';

export async function warmServingData(warehouse: Warehouse, logger: Logger): Promise<void> {
  const started = performance.now();
  try {
    for (const name of READ_NAMES) {
      // A read of each view with its defaults plans with (and so loads) what it holds.
      await readView(warehouse, name);
      await loadHeldRanking(warehouse, READS[name]);
    }
  } catch (error) {
    if (isAppError(error) && error.code === 'WAREHOUSE_NOT_BUILT') return;
    logger.warn({ err: error }, 'serving data not loaded ahead; the first reads load it');
    return;
  }
  logger.info({ ms: Math.round(performance.now() - started) }, 'serving data loaded');
}
