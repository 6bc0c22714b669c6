/**
 * `startTypeScriptWorker`: a TypeScript entry is loaded through tsx inside the thread; a
 * JavaScript entry (what packages/testing `bundleEntry` writes) starts as it is.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { startTypeScriptWorker } from '../../src/threads/typescript-worker.js';

/** The thread's first message (rejects with the thread's error), and its exit code. */
async function answer(worker: Worker): Promise<{ message: unknown; code: number }> {
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  const [message] = (await once(worker, 'message')) as [unknown];
  return { message, code: await exited };
}

describe('startTypeScriptWorker', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'typescript-worker-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('loads a TypeScript entry through tsx in the thread, with its workerData', async () => {
    const worker = startTypeScriptWorker(new URL('./echo-thread.ts', import.meta.url), {
      workerData: { n: 1 },
    });
    assert.deepEqual(await answer(worker), {
      message: { echoed: { n: 1 }, loaded: 'transformed' },
      code: 0,
    });
  });

  it('starts a JavaScript entry as it is', async () => {
    const entry = join(dir, 'echo-thread.mjs');
    await writeFile(
      entry,
      "import { parentPort, workerData } from 'node:worker_threads';\n" +
        "parentPort.postMessage({ echoed: workerData, loaded: 'as is' });\n",
    );
    const worker = startTypeScriptWorker(pathToFileURL(entry), { workerData: ['a'] });
    assert.deepEqual(await answer(worker), {
      message: { echoed: ['a'], loaded: 'as is' },
      code: 0,
    });
  });

  it('ends the thread with the error a JavaScript entry throws', async () => {
    const entry = join(dir, 'throws.mjs');
    await writeFile(entry, "throw new Error('no start');\n");
    const worker = startTypeScriptWorker(pathToFileURL(entry));
    await assert.rejects(answer(worker), /no start/);
  });
});
