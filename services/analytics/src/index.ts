/** The analytics service as a library: its app builder, settings, warehouse, pipeline and generator. */
export { buildAnalyticsApp, type AppOptions } from './app.js';
/** @deprecated the earlier name of `buildAnalyticsApp` (app builders are `build<Service>App`). */
export { buildAnalyticsApp as buildApp } from './app.js';
export { analyticsEnvSchema, type AnalyticsEnv } from './config.js';
export { analyticsErrors } from './errors.js';
/** @deprecated the earlier name of `analyticsErrors` (registries are `<package>Errors`). */
export { analyticsErrors as errors } from './errors.js';
export { createLlmProvider } from './agent/providers/create-llm-provider.js';
export type { LlmProvider, ProviderSettings } from './agent/llm-types.js';
export { createWarehouse, type Warehouse, type WarehouseOptions } from './warehouse/warehouse.js';
export { WAREHOUSE_CATALOG, warehouseDir, warehousePath } from './warehouse/paths.js';
export { runPipeline, type PipelineOptions, type PipelineResult } from './pipeline/run-pipeline.js';
export { PipelineError } from './pipeline/pipeline-error.js';
export { ensureWarehouse, type EnsureWarehouseOptions } from './startup/ensure-warehouse.js';
export {
  generateDataset,
  type GenerateOptions,
  type GenerateResult,
} from './generate/generate-dataset.js';
export { READ_NAMES, READS, type ReadName } from './sales/catalog.js';
export { readView, type ViewPage } from './sales/read-view.js';
export { runReadOnlySql } from './sql/read-only-sql.js';
