/**
 * Where the warehouse lives: `DATA_DIR/analytics/raw_data.duckdb`. DuckDB names a
 * database's catalog after its file, so the views resolve as `raw_data.gold.<view>`.
 */
import { join } from 'node:path';

export const WAREHOUSE_CATALOG = 'raw_data';
export const WAREHOUSE_FILE = `${WAREHOUSE_CATALOG}.duckdb`;

export function warehouseDir(dataDir: string): string {
  return join(dataDir, 'analytics');
}

export function warehousePath(dataDir: string): string {
  return join(warehouseDir(dataDir), WAREHOUSE_FILE);
}
