/**
 * Finds and decodes hitsound samples: the beatmap folder first (custom indices and
 * files), then the skin folder, then the project's synthesised defaults. Files are
 * matched by name without extension (.wav, .ogg, .mp3), case-insensitively, only
 * directly inside those folders (a name with a path separator or `..` never
 * resolves). Decoding is ffmpeg's, bounded in size, length and time; a file that
 * does not decode falls through to the next place, an empty file is silence (as in
 * the game, where maps mute sounds with empty files).
 */
import { execFile } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { defaultSample, SAMPLE_RATE } from './default-samples.js';
import type { PlannedSound } from './hit-sound-plan.js';

const EXTENSIONS = ['.wav', '.ogg', '.mp3'];
/** Largest sample file read. */
const MAX_FILE_BYTES = 16 * 1024 * 1024;
/** Longest stretch of a sample kept. */
const MAX_SAMPLE_SECONDS = 10;
const DECODE_TIMEOUT_MS = 15_000;
const SILENCE = new Float32Array(0);

export interface SampleBankOptions {
  ffmpeg: string;
  beatmapDir: string;
  skinDir: string | undefined;
  log: (line: string) => void;
}

export class SampleBank {
  private readonly decoded = new Map<string, Promise<Float32Array | undefined>>();
  private readonly synthesised = new Map<string, Float32Array | undefined>();
  private readonly listings = new Map<string, Promise<Map<string, string>>>();

  constructor(private readonly o: SampleBankOptions) {}

  /** The sample for a planned sound (interleaved stereo at SAMPLE_RATE); silence when nothing resolves. */
  async resolve(sound: PlannedSound): Promise<Float32Array> {
    for (const c of sound.candidates) {
      const dirs = c.beatmapOnly ? [this.o.beatmapDir] : [this.o.skinDir];
      for (const dir of dirs) {
        if (!dir) continue;
        const found = await this.fromFolder(dir, c.name);
        if (found) return found;
      }
      if (!c.beatmapOnly) {
        const synth = this.synth(c.name);
        if (synth) return synth;
      }
    }
    return SILENCE;
  }

  private synth(name: string): Float32Array | undefined {
    const key = name.toLowerCase();
    if (!this.synthesised.has(key)) this.synthesised.set(key, defaultSample(key));
    return this.synthesised.get(key);
  }

  private async fromFolder(dir: string, name: string): Promise<Float32Array | undefined> {
    if (!name || /[/\\]|\.\./.test(name) || name.includes('\0')) return undefined;
    const files = await this.listing(dir);
    for (const ext of EXTENSIONS) {
      const file = files.get(`${name}${ext}`.toLowerCase());
      if (!file) continue;
      const path = join(dir, file);
      let p = this.decoded.get(path);
      if (!p) {
        p = this.decode(path);
        this.decoded.set(path, p);
      }
      const v = await p;
      if (v) return v;
    }
    return undefined;
  }

  private listing(dir: string): Promise<Map<string, string>> {
    let p = this.listings.get(dir);
    if (!p) {
      p = readdir(dir, { withFileTypes: true })
        .then(
          (entries) =>
            new Map(entries.filter((e) => e.isFile()).map((e) => [e.name.toLowerCase(), e.name])),
        )
        .catch(() => new Map<string, string>());
      this.listings.set(dir, p);
    }
    return p;
  }

  private async decode(path: string): Promise<Float32Array | undefined> {
    const size = await stat(path).then(
      (st) => st.size,
      () => -1,
    );
    if (size < 0) return undefined;
    if (size === 0) return SILENCE;
    if (size > MAX_FILE_BYTES) {
      this.o.log(`hitsound ${path} is larger than ${MAX_FILE_BYTES} bytes: skipped`);
      return undefined;
    }
    return new Promise((resolve) => {
      execFile(
        this.o.ffmpeg,
        [
          '-v',
          'error',
          '-i',
          path,
          '-t',
          String(MAX_SAMPLE_SECONDS),
          '-f',
          'f32le',
          '-ac',
          '2',
          '-ar',
          String(SAMPLE_RATE),
          'pipe:1',
        ],
        {
          encoding: 'buffer',
          timeout: DECODE_TIMEOUT_MS,
          maxBuffer: MAX_SAMPLE_SECONDS * SAMPLE_RATE * 8 + 65536,
        },
        (err, stdout) => {
          if (err) {
            this.o.log(`hitsound ${path} does not decode: skipped`);
            resolve(undefined);
            return;
          }
          const bytes = stdout.byteLength - (stdout.byteLength % 8);
          const copy = new Float32Array(bytes / 4);
          new Uint8Array(copy.buffer).set(stdout.subarray(0, bytes));
          resolve(copy);
        },
      );
    });
  }
}
