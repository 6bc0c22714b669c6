/** Worker thread entry: prepares the scene from workerData, then draws requested frames. */
import { parentPort, workerData } from 'node:worker_threads';
import { createFrameCanvas, FrameDrawer } from './frame-drawer.js';
import { prepareScene } from './prepare-scene.js';
import type { WorkerInit } from './worker-pool.js';

const init = workerData as WorkerInit & { startTime: number };
const port = parentPort!;

try {
  const prepared = await prepareScene({ ...init, log: () => undefined });
  const ctx = createFrameCanvas(init.width, init.height);
  prepared.scene.introStart = init.startTime;
  const drawer = new FrameDrawer(prepared.scene);
  const frameMs = (1000 / init.fps) * prepared.speed;
  const size = init.width * init.height * 4;
  // getImageData's buffer (not readFrame's canvas.data()) is a fresh one that Node 20
  // moves to the main thread as it is, no copy. Node 22 and later refuse to move a buffer
  // a native addon made (a DataCloneError): from the first refusal on, frames are copied
  // into buffers of this thread's own, as below.
  let moveCanvasBuffers = true;
  port.on('message', (m: { type: string; i: number; buf?: ArrayBuffer }) => {
    if (m.type !== 'draw') return;
    try {
      drawer.draw(ctx, init.startTime + m.i * frameMs);
      const d = ctx.getImageData(0, 0, init.width, init.height).data;
      const data = new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
      if (moveCanvasBuffers && data.byteOffset === 0 && data.buffer.byteLength === size) {
        const own = data.buffer as ArrayBuffer;
        try {
          port.postMessage({ type: 'frame', i: m.i, buf: own }, [own]);
          return;
        } catch (err) {
          if (!(err instanceof DOMException && err.name === 'DataCloneError')) throw err;
          moveCanvasBuffers = false;
        }
      }
      const buf = m.buf && m.buf.byteLength === size ? m.buf : new ArrayBuffer(size);
      new Uint8Array(buf).set(data);
      port.postMessage({ type: 'frame', i: m.i, buf }, [buf]);
    } catch (err) {
      port.postMessage({ type: 'error', error: err instanceof Error ? err.message : String(err) });
    }
  });
  port.postMessage({ type: 'ready' });
} catch (err) {
  port.postMessage({ type: 'error', error: err instanceof Error ? err.message : String(err) });
}
