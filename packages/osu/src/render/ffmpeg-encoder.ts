/**
 * ffmpeg as an encoder: raw RGBA frames on stdin, H.264 yuv420p with +faststart,
 * the beatmap's audio (rate-changed for DT/NC/HT, delayed when the video starts
 * before the song) or a silent track, optional frame-blend motion blur.
 * Writes respect backpressure; abort kills the process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

export interface EncoderOptions {
  ffmpeg: string;
  width: number;
  height: number;
  fps: number;
  output: string;
  durationSeconds: number;
  /** Audio file and where in it (seconds, may be negative) the video starts. */
  audio:
    | {
        path: string;
        startSeconds: number;
        speed: number;
        /** Nightcore: pitch rises with the rate (needs the sample rate). */ resampleFrom?: number;
      }
    | undefined;
  motionBlur: boolean;
  preset: string;
  crf: number;
  log: (line: string) => void;
}

export class EncoderError extends Error {
  override readonly name = 'EncoderError';
}

export class FfmpegEncoder {
  private readonly proc: ChildProcess;
  private readonly done: Promise<void>;
  private stderr = '';

  constructor(private readonly o: EncoderOptions) {
    const args = [
      '-hide_banner',
      '-loglevel',
      'error',
      '-y',
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgba',
      '-s',
      `${o.width}x${o.height}`,
      '-r',
      String(o.fps),
      '-i',
      'pipe:0',
    ];
    const audioFilters: string[] = [];
    if (o.audio) {
      if (o.audio.startSeconds > 0) args.push('-ss', o.audio.startSeconds.toFixed(3));
      args.push('-i', o.audio.path);
      if (o.audio.startSeconds < 0) {
        const ms = Math.round((-o.audio.startSeconds * 1000) / o.audio.speed);
        // one delay per channel (up to 7.1): older ffmpeg builds have no `all=1`
        audioFilters.push(`adelay=${Array(8).fill(ms).join('|')}`);
      }
      if (o.audio.resampleFrom) {
        const sr = o.audio.resampleFrom;
        audioFilters.unshift(`asetrate=${Math.round(sr * o.audio.speed)}`, `aresample=${sr}`);
      } else if (o.audio.speed !== 1) audioFilters.unshift(`atempo=${o.audio.speed}`);
    } else {
      args.push('-f', 'lavfi', '-i', 'anullsrc=r=44100:cl=stereo');
    }
    // blend after the conversion to yuv420p: 1.5 bytes a pixel instead of 4. The 1-2-1
    // blend of frames n-2, n-1, n is two averages of neighbours in a row (tblend), about
    // ten times cheaper than tmix (4.8 -> 0.4 ms a 1080p frame, same pixels within
    // rounding); the first frame is cloned twice as tmix does, and the timestamps are
    // renumbered because tblend drops its first frame.
    const videoFilters = [
      'format=yuv420p',
      ...(o.motionBlur
        ? [
            'tpad=start=2:start_mode=clone',
            'tblend=all_mode=average',
            'tblend=all_mode=average',
            'setpts=N/(FRAME_RATE*TB)',
          ]
        : []),
    ];
    args.push('-map', '0:v', '-map', '1:a', '-vf', videoFilters.join(','));
    if (audioFilters.length) args.push('-af', audioFilters.join(','));
    args.push(
      '-c:v',
      'libx264',
      '-preset',
      o.preset,
      '-crf',
      String(o.crf),
      '-pix_fmt',
      'yuv420p',
      '-r',
      String(o.fps),
    );
    args.push(
      '-c:a',
      'aac',
      '-b:a',
      '160k',
      '-t',
      o.durationSeconds.toFixed(3),
      '-movflags',
      '+faststart',
      o.output,
    );
    o.log(`ffmpeg ${args.join(' ')}`);
    this.proc = spawn(o.ffmpeg, args, { stdio: ['pipe', 'ignore', 'pipe'] });
    this.proc.stderr!.on('data', (d: Buffer) => {
      if (this.stderr.length < 20000) this.stderr += d.toString();
    });
    this.proc.stdin!.on('error', () => {
      // reported by the exit code
    });
    this.done = new Promise((resolve, reject) => {
      this.proc.on('error', (err) =>
        reject(new EncoderError(`ffmpeg could not start: ${err.message}`)),
      );
      this.proc.on('exit', (code, signal) => {
        if (code === 0) resolve();
        else
          reject(
            new EncoderError(
              `ffmpeg failed (${signal ?? code}): ${this.stderr.trim().slice(-2000)}`,
            ),
          );
      });
    });
    this.done.catch(() => undefined);
  }

  async write(frame: Uint8Array): Promise<void> {
    const stdin = this.proc.stdin!;
    if (stdin.destroyed || this.proc.exitCode !== null) {
      await this.done;
      throw new EncoderError('ffmpeg exited early');
    }
    if (!stdin.write(frame)) {
      await Promise.race([once(stdin, 'drain'), this.done.then(() => undefined)]);
    }
  }

  async finish(): Promise<void> {
    this.proc.stdin!.end();
    await this.done;
  }

  kill(): void {
    this.proc.kill('SIGKILL');
  }
}
