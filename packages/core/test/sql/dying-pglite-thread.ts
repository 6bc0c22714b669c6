/**
 * A stand-in for `pglite-thread.ts` that `pglite-thread.test.ts` starts: it reports ready,
 * as the real thread does once its database opened, then exits with code 3 at the first
 * call, as a thread would that crashed. Not a test itself.
 */
import { parentPort } from 'node:worker_threads';

parentPort!.postMessage({ op: 'ready' });
parentPort!.once('message', () => process.exit(3));
