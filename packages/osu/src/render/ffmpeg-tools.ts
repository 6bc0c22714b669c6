/** Small ffprobe calls around a render: an audio file's sample rate. */
import { execFile } from 'node:child_process';

/** Sample rate of the first audio stream, or undefined when ffprobe cannot tell. */
export function sampleRate(ffprobe: string, path: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    execFile(
      ffprobe,
      [
        '-v',
        'error',
        '-select_streams',
        'a:0',
        '-show_entries',
        'stream=sample_rate',
        '-of',
        'csv=p=0',
        path,
      ],
      { timeout: 10_000 },
      (err, stdout) => {
        const n = Number(String(stdout).trim());
        resolve(!err && n > 0 ? n : undefined);
      },
    );
  });
}
