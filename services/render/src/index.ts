/** The render service as a library: its app builder, settings, engines and job-processing parts. */
export { buildRenderApp, type BuildAppOptions } from './app.js';
export {
  renderEnvSchema,
  settingsFromEnv,
  DEFAULT_SETTINGS,
  type RenderEnv,
  type RenderSettings,
} from './config.js';
export { createLimiters, createRenderContext, type RenderContext } from './context.js';
export { openEngines, type RenderEngines } from './engines.js';
export { startJobProcessing } from './job-processing.js';
/** @deprecated the earlier name of `startJobProcessing` ("pipeline" is the analytics data build). */
export { startJobProcessing as startPipeline } from './job-processing.js';
export {
  createDispatcher,
  type Dispatcher,
  type DispatcherOptions,
} from './dispatcher/dispatcher.js';
export { createTaskQueue, type TaskQueueOptions } from './queue/create-task-queue.js';
export type { RenderTask, TaskQueue, TaskConsumer, TaskHandler } from './queue/task-queue.js';
export { startRenderWorker, type RenderWorker } from './worker/render-worker.js';
export {
  reapOnce,
  startReaper,
  redispatchAfterRestart,
  type ReaperOptions,
} from './reaper/reaper.js';
export { signCallback, verifyCallback } from './callbacks/signature.js';
export { migrateRenderDatabase } from './migrations.js';
