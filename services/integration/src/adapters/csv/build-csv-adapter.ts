/** The CSV adapter: consumer group `adapter.csv`, files under `baseDir` (default `DATA_DIR/integration/csv`). */
import { buildAdapter, type Adapter, type AdapterDeps } from '../runtime/build-adapter.js';
import { DEFAULT_COMPACTION } from './csv-file.js';
import { createCsvTarget } from './csv-target.js';

export interface CsvAdapterDeps extends AdapterDeps {
  /** Folder attachment paths are relative to, e.g. `${DATA_DIR}/integration/csv`. */
  baseDir: string;
  /** fsync every write. @defaultValue true */
  durable?: boolean;
  /** Journal entries beyond twice the live state before a compaction (`CSV_JOURNAL_COMPACT_ENTRIES`). @defaultValue 100000 */
  compactEntries?: number;
  /** Offsets below each partition's position within which every recordId is kept (`CSV_RECORD_IDS_KEEP`). @defaultValue 10000 */
  recordIdsKeep?: number;
}

export async function buildCsvAdapter(deps: CsvAdapterDeps): Promise<Adapter> {
  return buildAdapter({
    ...deps,
    target: createCsvTarget({
      baseDir: deps.baseDir,
      durable: deps.durable ?? true,
      compaction: {
        ...DEFAULT_COMPACTION,
        ...(deps.compactEntries === undefined ? {} : { threshold: deps.compactEntries }),
        ...(deps.recordIdsKeep === undefined ? {} : { keepRecent: deps.recordIdsKeep }),
      },
    }),
  });
}
