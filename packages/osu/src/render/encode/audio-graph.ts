/**
 * ffmpeg arguments for a render's sound: the beatmap's music from the video's start
 * (atempo for DT/HT, asetrate for NC's higher pitch, delayed when the video starts
 * before the song), scaled by the music volume, plus the offline-mixed hitsound track,
 * summed without normalisation (amerge + pan, which every ffmpeg since 4 has). Without
 * music the hitsounds alone, without either a silent track. Inputs are numbered from
 * `firstInput` (the video is input 0).
 */

export interface MusicInput {
  path: string;
  /** Where in the file (seconds, may be negative) the video starts. */
  startSeconds: number;
  speed: number;
  /** Nightcore: pitch rises with the rate (needs the sample rate). */
  resampleFrom?: number;
}

export interface HitSoundInput {
  path: string;
  sampleRate: number;
}

export interface AudioGraphInput {
  music: MusicInput | undefined;
  hitSounds: HitSoundInput | undefined;
  /** 0..1 @defaultValue 1 */
  musicVolume?: number;
}

export interface AudioGraph {
  /** Input arguments (`-i` and what precedes each). */
  inputs: string[];
  /** `-filter_complex` / `-af` and `-map` arguments for the audio. */
  output: string[];
}

const MIX_RATE = 44100;

export function audioGraph(g: AudioGraphInput, firstInput: number): AudioGraph {
  const inputs: string[] = [];
  const musicFilters: string[] = [];
  const volume = g.musicVolume ?? 1;
  let musicIndex: number | undefined;
  if (g.music && volume > 0) {
    const m = g.music;
    if (m.startSeconds > 0) inputs.push('-ss', m.startSeconds.toFixed(3));
    inputs.push('-i', m.path);
    musicIndex = firstInput;
    if (m.resampleFrom) {
      musicFilters.push(
        `asetrate=${Math.round(m.resampleFrom * m.speed)}`,
        `aresample=${m.resampleFrom}`,
      );
    } else if (m.speed !== 1) musicFilters.push(`atempo=${m.speed}`);
    if (m.startSeconds < 0) {
      const ms = Math.round((-m.startSeconds * 1000) / m.speed);
      // one delay per channel (up to 7.1): older ffmpeg builds have no `all=1`
      musicFilters.push(`adelay=${Array(8).fill(ms).join('|')}`);
    }
    if (volume !== 1) musicFilters.push(`volume=${volume.toFixed(3)}`);
  }
  let hitIndex: number | undefined;
  if (g.hitSounds) {
    hitIndex = firstInput + (musicIndex === undefined ? 0 : 1);
    inputs.push(
      '-f',
      's16le',
      '-ar',
      String(g.hitSounds.sampleRate),
      '-ac',
      '2',
      '-i',
      g.hitSounds.path,
    );
  }
  if (musicIndex === undefined && hitIndex === undefined) {
    inputs.push('-f', 'lavfi', '-i', `anullsrc=r=${MIX_RATE}:cl=stereo`);
    return { inputs, output: ['-map', `${firstInput}:a`] };
  }
  if (hitIndex === undefined)
    return {
      inputs,
      output: [
        '-map',
        `${musicIndex}:a`,
        ...(musicFilters.length ? ['-af', musicFilters.join(',')] : []),
      ],
    };
  if (musicIndex === undefined) return { inputs, output: ['-map', `${hitIndex}:a`] };
  // the music is padded with silence so the sum lasts as long as the hitsound track (the video)
  const stereo = `aresample=${MIX_RATE},aformat=sample_fmts=fltp:channel_layouts=stereo`;
  const graph =
    `[${musicIndex}:a]${[...musicFilters, stereo, 'apad'].join(',')}[music];` +
    `[${hitIndex}:a]${stereo}[hits];` +
    `[music][hits]amerge=inputs=2,pan=stereo|c0=c0+c2|c1=c1+c3[audio]`;
  return { inputs, output: ['-filter_complex', graph, '-map', '[audio]'] };
}
