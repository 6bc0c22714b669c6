/**
 * A worker thread's module in TypeScript (typescript-worker.test.ts): answers with its
 * `workerData`. The enum needs a transform, not only erased types, so the answer shows
 * the thread loaded the module through tsx.
 */
import { parentPort, workerData } from 'node:worker_threads';

enum Loaded {
  Transformed = 'transformed',
}

parentPort!.postMessage({ echoed: workerData as unknown, loaded: Loaded.Transformed });
