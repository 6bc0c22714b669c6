/**
 * A worker thread whose entry is a TypeScript module: the thread registers tsx's loader
 * first (the way this process loads TypeScript), then imports the entry. A plain
 * `new Worker(url)` would need the process's `--import tsx` flag inherited, which a
 * process started another way (a test runner, a bundled entry) does not have. An entry
 * that is JavaScript already (a bundle of the TypeScript one: packages/testing
 * `bundleEntry`) starts as it is, without tsx: the thread then does not transform every
 * module it loads (seconds of CPU a start for a thread that loads a whole service).
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

export function startTypeScriptWorker(
  entry: URL,
  options: Omit<WorkerOptions, 'eval'> = {},
): Worker {
  if (!/\.[cm]?tsx?$/.test(entry.pathname)) return new Worker(entry, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const source = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(source, { ...options, eval: true });
}
