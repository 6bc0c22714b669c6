/**
 * Which samples a play makes, and when: every circle hit, slider head, repeat, tick and
 * end the player got, and every spinner completed, with the sample names the game
 * would look up (set, sound, custom index), the volume and the x position for panning.
 * Reads the beatmap's hit-sample fields, slider edge sounds/sets and the timing point
 * in force (5 ms leniency, as the game's legacy decoder), falling back to the
 * [General] SampleSet. Misses and slider breaks make no sound.
 */
import { sliderPositionAt, type PlayableBeatmap, type PlayObject } from '../beatmap/playable.js';
import type { HitSample, TimingPoint } from '../beatmap/types.js';
import type { JudgementResult } from '../judgement/types.js';

/** One sample to play. */
export interface PlannedSound {
  /** Map time (ms). */
  time: number;
  /** Playfield x (0..512), for panning. */
  x: number;
  /** 0..1 (the map's volume, before the render's hitsound volume). */
  volume: number;
  /**
   * File names to try in order, without extension; the first that resolves wins. A name
   * with `beatmapOnly` is looked up in the beatmap folder alone (custom index or file).
   */
  candidates: { name: string; beatmapOnly: boolean }[];
}

const SET_NAMES = ['', 'normal', 'soft', 'drum'] as const;
const CONTROL_POINT_LENIENCY = 5;

/** Plans the sounds of a judged play, sorted by time. */
export function planHitSounds(play: PlayableBeatmap, judgement: JudgementResult): PlannedSound[] {
  const bm = play.beatmap;
  const timing = bm.timingPoints;
  const defaultSet = sampleSetOf(bm.general.SampleSet);
  const out: PlannedSound[] = [];
  const objs = play.objects;
  const pointAt = (time: number): TimingPoint | undefined => {
    let lo = 0;
    let hi = timing.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (timing[mid]!.time <= time + CONTROL_POINT_LENIENCY) lo = mid + 1;
      else hi = mid;
    }
    return timing[lo - 1] ?? timing[0];
  };
  const push = (
    time: number,
    soundTime: number,
    x: number,
    bits: number,
    sample: HitSample,
    edgeSet: [number, number] | undefined,
    tick = false,
  ): void => {
    const tp = pointAt(soundTime);
    const tpSet = tp && tp.sampleSet > 0 ? tp.sampleSet : defaultSet;
    const normalSet = edgeSet?.[0] || sample.normalSet || tpSet;
    const additionSet = edgeSet?.[1] || sample.additionSet || normalSet;
    const index = sample.index || tp?.sampleIndex || 0;
    const volume = (sample.volume || tp?.volume || 100) / 100;
    const variant = (set: number, sound: string): PlannedSound['candidates'] => {
      const base = `${SET_NAMES[set] ?? 'normal'}-${sound}`;
      const list: PlannedSound['candidates'] = [];
      if (index > 0) list.push({ name: index > 1 ? `${base}${index}` : base, beatmapOnly: true });
      list.push({ name: base, beatmapOnly: false });
      return list;
    };
    if (tick) {
      out.push({ time, x, volume, candidates: variant(normalSet, 'slidertick') });
      return;
    }
    if (sample.filename && !edgeSet) {
      const name = sample.filename.replace(/\.(wav|ogg|mp3)$/i, '');
      out.push({ time, x, volume, candidates: [{ name, beatmapOnly: true }] });
      return;
    }
    // the normal sound always plays; additions on their bits
    out.push({ time, x, volume, candidates: variant(normalSet, 'hitnormal') });
    if (bits & 2) out.push({ time, x, volume, candidates: variant(additionSet, 'hitwhistle') });
    if (bits & 4) out.push({ time, x, volume, candidates: variant(additionSet, 'hitfinish') });
    if (bits & 8) out.push({ time, x, volume, candidates: variant(additionSet, 'hitclap') });
  };

  for (const e of judgement.events) {
    const o = objs[e.objectIndex];
    if (!o) continue;
    const src = o.source;
    if (e.kind === 'hit' && e.result > 0 && o.kind === 'circle')
      push(e.time, o.time, o.x, src.hitSound, src.hitSample, undefined);
    else if (e.kind === 'hit' && e.result > 0 && o.kind === 'spinner')
      push(o.endTime, o.endTime, o.x, src.hitSound, src.hitSample, undefined);
    else if (e.kind === 'head' && o.kind === 'slider') pushEdge(o, 0, e.time);
    else if (e.kind === 'tick' && o.kind === 'slider') {
      const ev = o.events.find((v) => v.time === e.time);
      if (!ev) continue;
      if (ev.kind === 'tick') push(ev.time, ev.time, ev.x, 0, src.hitSample, undefined, true);
      else if (ev.kind === 'repeat') pushEdge(o, ev.span + 1, ev.time);
      else pushEdge(o, o.slides, o.endTime);
    }
  }

  function pushEdge(o: PlayObject, edge: number, time: number): void {
    const s = o.source.slider;
    const soundTime = o.time + edge * o.spanDuration;
    const x = sliderPositionAt(o, Math.min(soundTime, o.endTime)).x;
    push(
      time,
      soundTime,
      x,
      s?.edgeSounds[edge] ?? o.source.hitSound,
      o.source.hitSample,
      s?.edgeSets[edge] ?? [0, 0],
    );
  }

  out.sort((a, b) => a.time - b.time);
  return out;
}

function sampleSetOf(name: string | undefined): number {
  const n = (name ?? '').trim().toLowerCase();
  return n === 'soft' ? 2 : n === 'drum' ? 3 : 1;
}
