/**
 * ffmpeg as an encoder: frames drawn as RGBA, converted here to I420 (BT.709, limited
 * range, tagged so) and piped raw, H.264 yuv420p with +faststart, the sound of
 * `audioGraph` (music and hitsounds), optional frame-blend motion blur (blended in
 * the converter; in ffmpeg only when ffmpeg converts), and the thumbnail JPEG as a
 * second output. Up to `framesInFlight` frames are
 * queued on the pipe while the next one is drawn; their buffers are reused. Abort
 * kills the process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { audioGraph, type HitSoundInput, type MusicInput } from './encode/audio-graph.js';
import { I420Converter } from './encode/rgba-to-i420.js';
import type { StageProfile } from './stage-profile.js';

export interface EncoderOptions {
  ffmpeg: string;
  width: number;
  height: number;
  fps: number;
  output: string;
  durationSeconds: number;
  /** The beatmap's music and where in it the video starts. */
  audio: MusicInput | undefined;
  /** The offline-mixed hitsound track. */
  hitSounds?: HitSoundInput;
  /** 0..1 @defaultValue 1 */
  musicVolume?: number;
  motionBlur: boolean;
  preset: string;
  crf: number;
  /** x264 `-threads`; undefined leaves x264's default. */
  x264Threads?: number;
  log: (line: string) => void;
  /**
   * Where RGBA becomes yuv420p: 'node' converts in this process and pipes 1.5 bytes a
   * pixel; 'ffmpeg' pipes RGBA and lets swscale convert (for comparison).
   * @defaultValue 'node'
   */
  convert?: 'node' | 'ffmpeg';
  /** Frames written to the pipe but not yet taken by ffmpeg before write() waits. @defaultValue 2 */
  framesInFlight?: number;
  /**
   * A JPEG of output frame `frame` (0-based, after the motion blur, before x264), written
   * by the same ffmpeg: a second ffmpeg that seeks into the finished video decodes every
   * frame from the keyframe before it (README, Benchmarks: ~1.6 s of CPU at 4k).
   */
  thumbnail?: { path: string; frame: number };
}

/**
 * glibc malloc settings for the encoder process. ffmpeg allocates each filtered frame
 * (tblend's output: 3 MB at 1080p) afresh; by default glibc gives such blocks back to
 * the kernel when freed (mmap threshold, heap trimming), so every frame's buffers are
 * faulted in again page by page: 80,000 minor faults for 180 1080p frames through the
 * motion blur against 10,000 with these, and ffmpeg's CPU a frame 31 -> 9-12 ms at
 * 1080p (blur and x264, identical output; README, Benchmarks). Kept at 64 MB, above a
 * 4k frame (12 MB); the environment's own values win.
 */
const encoderMallocEnv = {
  MALLOC_MMAP_THRESHOLD_: String(64 << 20),
  MALLOC_TRIM_THRESHOLD_: String(64 << 20),
};

export class EncoderError extends Error {
  override readonly name = 'EncoderError';
}

export class FfmpegEncoder {
  private readonly proc: ChildProcess;
  private readonly done: Promise<void>;
  private stderr = '';
  private readonly converter: I420Converter | undefined;
  private readonly depth: number;
  private readonly inFlight: Promise<void>[] = [];
  private written = 0;

  constructor(private readonly o: EncoderOptions) {
    this.depth = Math.max(1, Math.floor(o.framesInFlight ?? 2));
    const convert = (o.convert ?? 'node') === 'node';
    if (convert) this.converter = new I420Converter(o.width, o.height, this.depth, o.motionBlur);
    const args = [
      '-hide_banner',
      '-loglevel',
      'error',
      '-y',
      '-f',
      'rawvideo',
      '-pix_fmt',
      convert ? 'yuv420p' : 'rgba',
      ...(convert ? ['-color_range', 'tv', '-colorspace', 'bt709'] : []),
      '-s',
      `${o.width}x${o.height}`,
      '-r',
      String(o.fps),
      '-i',
      'pipe:0',
    ];
    const audio = audioGraph(
      { music: o.audio, hitSounds: o.hitSounds, musicVolume: o.musicVolume },
      1,
    );
    args.push(...audio.inputs);
    // Motion blur: where this process converts, the converter blends (I420Converter), so
    // ffmpeg only encodes (its two tblends were ~a quarter of its CPU at 4k, README).
    // Otherwise (convert 'ffmpeg', for comparison) ffmpeg blends after the conversion to
    // yuv420p: the 1-2-1 blend of frames n-2, n-1, n as two averages of neighbours in a
    // row (tblend), the first frame cloned twice as tmix does, the timestamps renumbered
    // because tblend drops its first frame. Both give the same bytes (test).
    const videoFilters = [
      convert ? 'null' : 'scale=out_color_matrix=bt709:out_range=tv,format=yuv420p',
      ...(o.motionBlur && !convert
        ? [
            'tpad=start=2:start_mode=clone',
            'tblend=all_mode=average',
            'tblend=all_mode=average',
            'setpts=N/(FRAME_RATE*TB)',
          ]
        : []),
    ];
    const chain = videoFilters.join(',');
    if (o.thumbnail) {
      // split passes frame references, no copy; select drops all but the one frame
      const k = Math.max(0, Math.floor(o.thumbnail.frame));
      args.push(
        '-filter_complex',
        `[0:v]${chain},split=2[video][thumb];[thumb]select=eq(n\\,${k})[still]`,
        '-map',
        '[video]',
      );
    } else args.push('-map', '0:v', '-vf', chain);
    args.push(...audio.output);
    args.push(
      '-c:v',
      'libx264',
      '-preset',
      o.preset,
      '-crf',
      String(o.crf),
      ...(o.x264Threads ? ['-threads', String(o.x264Threads)] : []),
      '-pix_fmt',
      'yuv420p',
      '-color_range',
      'tv',
      '-colorspace',
      'bt709',
      '-color_primaries',
      'bt709',
      '-color_trc',
      'bt709',
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
    if (o.thumbnail)
      args.push('-map', '[still]', '-frames:v', '1', '-q:v', '3', '-f', 'image2', o.thumbnail.path);
    o.log(`ffmpeg ${args.join(' ')}`);
    this.proc = spawn(o.ffmpeg, args, {
      stdio: ['pipe', 'ignore', 'pipe'],
      env: { ...encoderMallocEnv, ...process.env },
    });
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

  /**
   * Queues one RGBA frame (width * height * 4 bytes); waits while the pipe holds
   * `framesInFlight` frames. `profile` gets laps for the wait, the conversion and the
   * pipe write.
   */
  async write(frame: Uint8Array, profile?: StageProfile): Promise<void> {
    const stdin = this.proc.stdin!;
    if (this.inFlight.length >= this.depth) await Promise.race([this.inFlight.shift()!, this.done]);
    profile?.lap('waiting for ffmpeg');
    if (stdin.destroyed || this.proc.exitCode !== null) {
      await this.done;
      throw new EncoderError('ffmpeg exited early');
    }
    // the slot used `depth` frames ago: its write has completed (awaited above)
    const chunk = this.converter ? this.converter.convert(frame, this.written) : frame;
    this.written++;
    if (this.converter) profile?.lap('convert');
    this.inFlight.push(
      new Promise<void>((resolve) => {
        stdin.write(chunk, () => resolve());
      }),
    );
    profile?.lap('pipe write');
  }

  async finish(): Promise<void> {
    await Promise.race([Promise.all(this.inFlight), this.done]);
    this.proc.stdin!.end();
    await this.done;
  }

  kill(): void {
    this.proc.kill('SIGKILL');
  }
}
