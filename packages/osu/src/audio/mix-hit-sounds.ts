/**
 * Mixes a play's hitsounds offline into one PCM track the length of the video:
 * signed 16-bit little-endian stereo at SAMPLE_RATE, written to `outputPath` one
 * second at a time (memory stays bounded whatever the video's length). Each sound is
 * placed at its real time in the video (map time over the mods' speed; the game plays
 * hitsounds at their own pitch), scaled by the map's volume and the render's hitsound
 * volume, and panned by its x on the playfield as the game does (±0.4 at the edges).
 */
import { open } from 'node:fs/promises';
import { SAMPLE_RATE } from './default-samples.js';
import type { PlannedSound } from './hit-sound-plan.js';

export interface PlacedSound {
  sound: PlannedSound;
  /** Interleaved stereo at SAMPLE_RATE. */
  pcm: Float32Array;
}

export interface MixOptions {
  /** Map time (ms) of the video's first frame. */
  startTime: number;
  /** Playback rate of the mods. */
  speed: number;
  durationSeconds: number;
  /** 0..1 */
  volume: number;
  outputPath: string;
}

const PAN_AMOUNT = 0.8;

/** Writes the track and returns how many sounds fell inside the video. */
export async function mixHitSounds(sounds: PlacedSound[], o: MixOptions): Promise<number> {
  const totalFrames = Math.max(0, Math.ceil(o.durationSeconds * SAMPLE_RATE));
  const placed = sounds
    .map((s) => {
      const at = Math.round(((s.sound.time - o.startTime) / o.speed / 1000) * SAMPLE_RATE);
      const pan = Math.max(-1, Math.min(1, (s.sound.x / 512 - 0.5) * PAN_AMOUNT));
      const gain = s.sound.volume * o.volume;
      return {
        at,
        end: at + s.pcm.length / 2,
        pcm: s.pcm,
        left: gain * Math.min(1, 1 - pan),
        right: gain * Math.min(1, 1 + pan),
      };
    })
    .filter((s) => s.end > 0 && s.at < totalFrames && s.pcm.length > 0 && s.left + s.right > 0)
    .sort((a, b) => a.at - b.at);

  const block = SAMPLE_RATE;
  const mix = new Float32Array(block * 2);
  const pcm16 = Buffer.alloc(block * 4);
  const file = await open(o.outputPath, 'w');
  try {
    let next = 0;
    let active: typeof placed = [];
    for (let start = 0; start < totalFrames; start += block) {
      const n = Math.min(block, totalFrames - start);
      const end = start + n;
      mix.fill(0);
      while (next < placed.length && placed[next]!.at < end) active.push(placed[next++]!);
      for (const s of active) {
        const from = Math.max(start, s.at);
        const to = Math.min(end, s.end);
        let src = (from - s.at) * 2;
        for (let f = from - start; f < to - start; f++, src += 2) {
          mix[f * 2] = mix[f * 2]! + s.pcm[src]! * s.left;
          mix[f * 2 + 1] = mix[f * 2 + 1]! + s.pcm[src + 1]! * s.right;
        }
      }
      active = active.filter((s) => s.end > end);
      for (let i = 0; i < n * 2; i++) {
        const v = Math.max(-1, Math.min(1, mix[i]!));
        pcm16.writeInt16LE(Math.round(v * 32767), i * 2);
      }
      await file.write(pcm16, 0, n * 4);
    }
  } finally {
    await file.close();
  }
  return placed.length;
}
