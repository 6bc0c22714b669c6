/**
 * Replays of the made beatmap written with `encodeReplay` of `@platform/osu`, each with
 * a judgement known by construction and written in its header as the game would:
 *
 * - `perfect`: the cursor is on every circle at its time with a fresh key press, follows
 *   every slider ball with the key held, and spins the spinner well past what it needs:
 *   every object is a 300 and the combo is full;
 * - `missed`: the cursor rests in a corner and no key is ever pressed: every object is a
 *   miss, the combo stays 0;
 * - `other-map`: `perfect` under another player's name, naming a beatmap that is not in
 *   the set ({@link OTHER_MAP_MD5});
 * - `lazer`: `perfect` in the newer lazer format (version 30000001, with a score-info block);
 * - `taiko`, `catch`, `mania`: `perfect` with the header's mode set to 1, 2 and 3.
 */
import {
  encodeReplay,
  parseBeatmap,
  preparePlayable,
  sliderPositionAt,
  type PlayObject,
  type Replay,
  type ReplayFrame,
} from '@platform/osu';
import { MADE_BEATMAP_OSU } from './made-beatmap.js';

/** What the game would have written in the header: the judgement of the replay. */
export interface KnownJudgement {
  n300: number;
  n100: number;
  n50: number;
  misses: number;
  maxCombo: number;
}

/** A beatmap MD5 no made fixture has (that of the text `not in the made set`). */
export const OTHER_MAP_MD5 = '626486521dba38ac487982af57fda180';

const K1 = 5; // K1 with M1, as the game writes it
const K2 = 10; // K2 with M2
const FRAME_MS = 10;
const SPIN_RADIANS_PER_MS = 0.04; // below the 0.05 rad/ms the judgement counts at most

interface Pose {
  x: number;
  y: number;
  keys: number;
}

/** Where the perfect player's cursor is at `t` and which key it holds. */
function perfectPose(objects: PlayObject[], t: number): Pose {
  for (const [i, o] of objects.entries()) {
    const key = i % 2 === 0 ? K1 : K2;
    if (o.kind === 'circle' && t >= o.time && t < o.time + 40) return { x: o.x, y: o.y, keys: key };
    if (o.kind === 'slider' && t >= o.time && t <= o.endTime + 20)
      return { ...sliderPositionAt(o, t), keys: key };
    if (o.kind === 'spinner' && t >= o.time && t <= o.endTime + 20) {
      const a = (t - o.time) * SPIN_RADIANS_PER_MS;
      return { x: 256 + 60 * Math.cos(a), y: 192 + 60 * Math.sin(a), keys: key };
    }
  }
  // between objects: glide from where the last one ended to where the next one starts
  const next = objects.findIndex((o) => o.time > t);
  const target = objects[next];
  if (!target) {
    const last = objects.at(-1)!;
    return { x: last.endX, y: last.endY, keys: 0 };
  }
  const prev = objects[next - 1];
  const from = prev
    ? { x: prev.endX, y: prev.endY, t: prev.endTime + 20 }
    : { x: 256, y: 192, t: 0 };
  const k = Math.min(1, Math.max(0, (t - from.t) / Math.max(1, target.time - from.t)));
  return { x: from.x + (target.x - from.x) * k, y: from.y + (target.y - from.y) * k, keys: 0 };
}

function framesOf(times: number[], pose: (t: number) => Pose): ReplayFrame[] {
  let previous = 0;
  return times.map((time) => {
    const p = pose(time);
    const frame = {
      time,
      delta: time - previous,
      x: Math.round(p.x * 100) / 100,
      y: Math.round(p.y * 100) / 100,
      keys: p.keys,
    };
    previous = time;
    return frame;
  });
}

/** Frame times: every FRAME_MS, plus each object's own time (a press lands exactly on it). */
function frameTimes(objects: PlayObject[]): number[] {
  const end = Math.ceil(objects.at(-1)!.endTime) + 500;
  const times = new Set<number>();
  for (let t = 0; t <= end; t += FRAME_MS) times.add(t);
  for (const o of objects) times.add(Math.round(o.time));
  return [...times].sort((a, b) => a - b);
}

/** The full combo of the map: one per circle and spinner, head plus each slider event. */
function fullCombo(objects: PlayObject[]): number {
  return objects.reduce((sum, o) => sum + (o.kind === 'slider' ? 1 + o.events.length : 1), 0);
}

function replayOf(
  beatmapMd5: string,
  playerName: string,
  frames: ReplayFrame[],
  judgement: KnownJudgement,
): Replay {
  return {
    mode: 0,
    version: 20151228,
    beatmapMd5,
    playerName,
    replayMd5: '0'.repeat(32),
    ...judgement,
    gekis: 0,
    katus: 0,
    score: 0,
    perfect: judgement.misses === 0 && judgement.n100 === 0 && judgement.n50 === 0,
    mods: 0,
    lifeBar: '',
    lifeBarPoints: [],
    timestamp: new Date('2024-01-01T00:00:00Z'),
    timestampTicks: 638396640000000000n,
    frames,
    seed: 7,
    rawFrames: [],
    onlineScoreId: 0n,
    targetPracticeAccuracy: undefined,
    scoreInfo: undefined,
  };
}

export interface MadeReplay {
  bytes: Uint8Array;
  judgement: KnownJudgement;
}

/** The made replays by name (without `.osr`). */
export function madeReplays(beatmapMd5: string): Record<string, MadeReplay> {
  const objects = preparePlayable(parseBeatmap(MADE_BEATMAP_OSU), 0).objects;
  const times = frameTimes(objects);
  const perfectJudgement: KnownJudgement = {
    n300: objects.length,
    n100: 0,
    n50: 0,
    misses: 0,
    maxCombo: fullCombo(objects),
  };
  const perfect = replayOf(
    beatmapMd5,
    'made-perfect',
    framesOf(times, (t) => perfectPose(objects, t)),
    perfectJudgement,
  );
  const missedJudgement: KnownJudgement = {
    n300: 0,
    n100: 0,
    n50: 0,
    misses: objects.length,
    maxCombo: 0,
  };
  const missed = replayOf(
    beatmapMd5,
    'made-missed',
    framesOf(times, () => ({ x: 0, y: 0, keys: 0 })),
    missedJudgement,
  );
  const made: Record<string, MadeReplay> = {
    perfect: { bytes: encodeReplay(perfect), judgement: perfectJudgement },
    missed: { bytes: encodeReplay(missed), judgement: missedJudgement },
  };
  made['other-map'] = {
    bytes: encodeReplay({ ...perfect, beatmapMd5: OTHER_MAP_MD5, playerName: 'made-other-map' }),
    judgement: perfectJudgement,
  };
  made.lazer = {
    bytes: encodeReplay({
      ...perfect,
      version: 30000001,
      playerName: 'made-lazer',
      scoreInfo: { mods: [], statistics: { great: perfectJudgement.n300 } },
    }),
    judgement: perfectJudgement,
  };
  for (const [name, mode] of [
    ['taiko', 1],
    ['catch', 2],
    ['mania', 3],
  ] as const)
    made[name] = { bytes: encodeReplay({ ...perfect, mode }), judgement: perfectJudgement };
  return made;
}
