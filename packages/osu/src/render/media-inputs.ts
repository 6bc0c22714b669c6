/**
 * What a render plays besides its frames: the beatmap's music (with NC's sample rate
 * when the pitch must rise), the background video when asked for, and the hitsound
 * track mixed offline. Every file name comes from the beatmap and is resolved inside
 * its folder. The caller owns the result: `close()` stops the video decoder and
 * removes the hitsound track.
 */
import { rm } from 'node:fs/promises';
import { buildHitSoundTrack, type HitSoundTrack } from '../audio/hit-sound-track.js';
import { fileIn } from '../beatmap/beatmap-file.js';
import { Mods } from '../replay/mods.js';
import type { MusicInput } from './encode/audio-graph.js';
import { sampleRate } from './ffmpeg-tools.js';
import type { PreparedRender } from './prepare-scene.js';
import { VideoSource } from './video-source.js';

export interface MediaArgs {
  prepared: PreparedRender;
  ffmpeg: string;
  ffprobe: string;
  skinDir: string | undefined;
  mods: number;
  /** Map time (ms) of the first frame. */
  startTime: number;
  frames: number;
  width: number;
  height: number;
  fps: number;
  video: boolean;
  hitsoundVolume: number;
  /** Where the hitsound track is written (removed by close()). */
  hitSoundPath: string;
  log: (line: string) => void;
}

/**
 * How far the music runs ahead of the map's written times: 24 ms for beatmaps of file
 * format v3/v4 (before v5), as the game plays them (lazer's
 * `EARLY_VERSION_TIMING_OFFSET`; stable shifts its clock against the audio). Only the
 * music moves: the replay's frames, the judgement and the hitsounds share the map's
 * own time base (README, Decisions).
 */
export function musicLeadMs(formatVersion: number): number {
  return formatVersion < 5 ? 24 : 0;
}

export interface MediaInputs {
  music: MusicInput | undefined;
  hitSounds: HitSoundTrack | undefined;
  video: VideoSource | undefined;
  /** First frame the video covers (before it: the background). */
  videoFirstFrame: number;
  close(): Promise<void>;
}

export async function openMediaInputs(a: MediaArgs): Promise<MediaInputs> {
  const { beatmap, folder, speed, judgement } = a.prepared;
  const log = a.log;
  const audioPath = await fileIn(folder, beatmap.audioFilename);
  const nightcoreRate =
    audioPath && (a.mods & Mods.Nightcore) !== 0
      ? await sampleRate(a.ffprobe, audioPath)
      : undefined;
  if (audioPath)
    log(
      `audio ${beatmap.audioFilename}${speed !== 1 ? ` at x${speed}${nightcoreRate ? ' (nightcore pitch)' : ''}` : ''}`,
    );
  else log('no audio file: silent video');
  const lead = musicLeadMs(beatmap.formatVersion);
  if (audioPath && lead)
    log(`file format v${beatmap.formatVersion}: the music runs ${lead} ms ahead`);
  const music = audioPath
    ? {
        path: audioPath,
        startSeconds: (a.startTime + lead) / 1000,
        speed,
        resampleFrom: nightcoreRate,
      }
    : undefined;

  let hitSounds: HitSoundTrack | undefined;
  if (a.hitsoundVolume > 0)
    hitSounds = await buildHitSoundTrack({
      play: a.prepared.scene.play,
      judgement,
      ffmpeg: a.ffmpeg,
      beatmapDir: folder,
      skinDir: a.skinDir,
      startTime: a.startTime,
      speed,
      durationSeconds: a.frames / a.fps,
      volume: a.hitsoundVolume,
      outputPath: a.hitSoundPath,
      log,
    });

  let video: VideoSource | undefined;
  let videoFirstFrame = 0;
  if (a.video) {
    const videoPath = await fileIn(folder, beatmap.events.videoFilename);
    if (videoPath) {
      const offset = beatmap.events.videoOffset;
      const frameMs = (1000 / a.fps) * speed;
      const start = a.startTime;
      videoFirstFrame = start >= offset ? 0 : Math.ceil((offset - start) / frameMs);
      const seek =
        start >= offset
          ? (start - offset) / 1000
          : (start + videoFirstFrame * frameMs - offset) / 1000;
      video = new VideoSource(a.ffmpeg, videoPath, seek, a.width, a.height, a.fps, speed);
      log(`background video ${beatmap.events.videoFilename} from ${seek.toFixed(2)} s`);
    } else
      log(
        beatmap.events.videoFilename
          ? `video ${beatmap.events.videoFilename} not found: skipped`
          : 'the beatmap has no video',
      );
  }
  return {
    music,
    hitSounds,
    video,
    videoFirstFrame,
    async close() {
      video?.close();
      if (hitSounds) await rm(hitSounds.path, { force: true });
    },
  };
}
