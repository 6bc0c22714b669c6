/**
 * Entry of a replay decode thread: each message is `{ id, bytes }`, each answer
 * `{ id, summary }` or `{ id, error }` (the decoder's message). See `replay-decoder.ts`.
 */
import { parentPort } from 'node:worker_threads';
import { summarizeReplay } from './replay-summary.js';

parentPort?.on('message', (message: { id: number; bytes: Uint8Array }) => {
  try {
    parentPort?.postMessage({ id: message.id, summary: summarizeReplay(message.bytes) });
  } catch (error) {
    parentPort?.postMessage({
      id: message.id,
      error: error instanceof Error ? error.message : String(error),
    });
  }
});
