/**
 * The beatmap's background video decoded by ffmpeg into raw RGBA frames at the output
 * size and frame rate (scaled in time by the mods' speed), read one frame at a time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { ImageData } from '@napi-rs/canvas';

export class VideoSource {
  private readonly proc: ChildProcess;
  private chunks: Buffer[] = [];
  private buffered = 0;
  private ended = false;
  private waiting: (() => void) | undefined;
  private readonly frameSize: number;
  private readonly frame: ImageData;

  constructor(
    ffmpeg: string,
    path: string,
    startSeconds: number,
    private readonly width: number,
    private readonly height: number,
    fps: number,
    speed: number,
  ) {
    this.frameSize = width * height * 4;
    this.frame = new ImageData(width, height);
    const vf = `fps=${fps / speed},scale=${width}:${height}:force_original_aspect_ratio=decrease,pad=${width}:${height}:(ow-iw)/2:(oh-ih)/2,format=rgba`;
    this.proc = spawn(
      ffmpeg,
      [
        '-hide_banner',
        '-loglevel',
        'error',
        '-ss',
        Math.max(0, startSeconds).toFixed(3),
        '-i',
        path,
        '-an',
        '-vf',
        vf,
        '-f',
        'rawvideo',
        '-pix_fmt',
        'rgba',
        'pipe:1',
      ],
      {
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    this.proc.stdout!.on('data', (d: Buffer) => {
      this.chunks.push(d);
      this.buffered += d.length;
      if (this.buffered > this.frameSize * 4) this.proc.stdout!.pause();
      this.wake();
    });
    this.proc.stdout!.on('end', () => {
      this.ended = true;
      this.wake();
    });
    this.proc.on('error', () => {
      this.ended = true;
      this.wake();
    });
  }

  private wake(): void {
    const w = this.waiting;
    this.waiting = undefined;
    w?.();
  }

  /** The next frame, or undefined once the video has ended. */
  async next(): Promise<ImageData | undefined> {
    while (this.buffered < this.frameSize && !this.ended) {
      this.proc.stdout!.resume();
      await new Promise<void>((r) => (this.waiting = r));
    }
    if (this.buffered < this.frameSize) return undefined;
    const dst = this.frame.data;
    let off = 0;
    while (off < this.frameSize) {
      const c = this.chunks[0]!;
      const take = Math.min(c.length, this.frameSize - off);
      dst.set(c.subarray(0, take), off);
      off += take;
      if (take === c.length) this.chunks.shift();
      else this.chunks[0] = c.subarray(take);
    }
    this.buffered -= this.frameSize;
    if (this.buffered < this.frameSize * 2) this.proc.stdout!.resume();
    return this.frame;
  }

  close(): void {
    this.proc.kill('SIGKILL');
  }
}
