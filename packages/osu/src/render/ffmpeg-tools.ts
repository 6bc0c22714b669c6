/** Small ffmpeg/ffprobe calls around a render: the thumbnail, an audio file's sample rate. */
import { execFile, spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

/** A JPEG of the video's frame at `at` seconds. */
export async function thumbnail(
  ffmpeg: string,
  video: string,
  out: string,
  at: number,
): Promise<void> {
  await mkdir(dirname(out), { recursive: true });
  await new Promise<void>((resolve, reject) => {
    const p = spawn(
      ffmpeg,
      [
        '-hide_banner',
        '-loglevel',
        'error',
        '-y',
        '-ss',
        at.toFixed(3),
        '-i',
        video,
        '-frames:v',
        '1',
        '-q:v',
        '3',
        '-f',
        'image2',
        out,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('error', reject);
    p.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`thumbnail failed: ${err.trim()}`)),
    );
  });
}

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
