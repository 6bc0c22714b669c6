/**
 * The hitsound track of a render: plans the play's sounds, finds their samples
 * (beatmap folder, skin, synthesised defaults) and mixes them into one raw PCM file
 * (s16le, stereo, SAMPLE_RATE) that the encoder mixes with the music.
 */
import type { PlayableBeatmap } from '../beatmap/playable.js';
import type { JudgementResult } from '../judgement/types.js';
import { SAMPLE_RATE } from './default-samples.js';
import { planHitSounds } from './hit-sound-plan.js';
import { mixHitSounds } from './mix-hit-sounds.js';
import { SampleBank } from './sample-bank.js';

export interface HitSoundTrackInput {
  play: PlayableBeatmap;
  judgement: JudgementResult;
  ffmpeg: string;
  beatmapDir: string;
  skinDir: string | undefined;
  /** Map time (ms) of the first frame. */
  startTime: number;
  speed: number;
  durationSeconds: number;
  /** 0..1 */
  volume: number;
  outputPath: string;
  log: (line: string) => void;
}

export interface HitSoundTrack {
  path: string;
  sampleRate: number;
  channels: 2;
  format: 's16le';
}

export async function buildHitSoundTrack(input: HitSoundTrackInput): Promise<HitSoundTrack> {
  const planned = planHitSounds(input.play, input.judgement);
  const endTime = input.startTime + input.durationSeconds * 1000 * input.speed;
  const inVideo = planned.filter((s) => s.time >= input.startTime - 2000 && s.time <= endTime);
  const bank = new SampleBank({
    ffmpeg: input.ffmpeg,
    beatmapDir: input.beatmapDir,
    skinDir: input.skinDir,
    log: input.log,
  });
  const placed = [];
  for (const sound of inVideo) placed.push({ sound, pcm: await bank.resolve(sound) });
  const mixed = await mixHitSounds(placed, {
    startTime: input.startTime,
    speed: input.speed,
    durationSeconds: input.durationSeconds,
    volume: input.volume,
    outputPath: input.outputPath,
  });
  input.log(`hitsounds: ${mixed} samples mixed (${planned.length} in the play)`);
  return { path: input.outputPath, sampleRate: SAMPLE_RATE, channels: 2, format: 's16le' };
}
