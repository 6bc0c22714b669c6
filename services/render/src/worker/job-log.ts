/**
 * A job's log: lines kept in memory and uploaded to `logs/<job_id>.log` every few
 * seconds while the job runs (so it can be read meanwhile), and once more at the end.
 */
import type { Logger, ObjectStore } from '@platform/core';

export interface JobLog {
  line(text: string): void;
  /** Uploads now if anything changed. */
  flush(): Promise<void>;
  /** Stops the periodic upload and uploads the final text. */
  close(): Promise<void>;
}

export function createJobLog(
  store: ObjectStore,
  key: string,
  uploadEveryMs: number,
  logger?: Logger,
): JobLog {
  const lines: string[] = [];
  let dirty = false;
  let uploading: Promise<void> = Promise.resolve();
  const flush = () => {
    if (!dirty) return uploading;
    dirty = false;
    const text = `${lines.join('\n')}\n`;
    uploading = uploading
      .then(() => store.put(key, text, { contentType: 'text/plain; charset=utf-8' }))
      .catch((error) => logger?.warn({ err: error, key }, 'log upload failed'));
    return uploading;
  };
  const timer = setInterval(() => void flush(), uploadEveryMs);
  timer.unref();
  return {
    line(text) {
      lines.push(`[${new Date().toISOString()}] ${text}`);
      dirty = true;
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
