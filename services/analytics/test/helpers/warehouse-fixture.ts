/** A warehouse built from the hand-made data set in a temporary folder, for service tests. */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@platform/core';
import { runPipeline } from '../../src/pipeline/run-pipeline.js';
import { warehouseDir, warehousePath } from '../../src/warehouse/paths.js';
import { createWarehouse, type Warehouse } from '../../src/warehouse/warehouse.js';
import { writeHandMadeData } from './hand-made-data.js';

export interface WarehouseFixture {
  dataDir: string;
  file: string;
  warehouse: Warehouse;
  /** Builds (or rebuilds) the warehouse from the hand-made data, or from other items and orders. */
  build(batch?: { items: string[][]; orders: string[][] }): Promise<void>;
  cleanup(): Promise<void>;
}

export const silentLogger = () => createLogger({ service: 'analytics-test', level: 'silent' });

export async function createWarehouseFixture(
  options: { built?: boolean } = {},
): Promise<WarehouseFixture> {
  const dataDir = await mkdtemp(join(tmpdir(), 'analytics-wh-'));
  const file = warehousePath(dataDir);
  const source = join(dataDir, 'source');
  await writeHandMadeData(source);
  await mkdir(warehouseDir(dataDir), { recursive: true });
  const warehouse = createWarehouse({ file });
  const fixture: WarehouseFixture = {
    dataDir,
    file,
    warehouse,
    build: async (batch) => {
      let sourceDir = source;
      if (batch) {
        sourceDir = join(dataDir, `batch-${Date.now()}`);
        await writeHandMadeData(sourceDir, batch.items, batch.orders);
      }
      await runPipeline({ sourceDir, warehouseFile: file });
    },
    cleanup: async () => {
      await warehouse.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  if (options.built !== false) await fixture.build();
  return fixture;
}

/** The warehouse with each query's SQL text recorded in `sql` (to check which reads run none). */
export function recordingQueries(warehouse: Warehouse, sql: string[]): Warehouse {
  return {
    ...warehouse,
    query: (text, params, options) => {
      sql.push(text);
      return warehouse.query(text, params, options);
    },
  };
}
