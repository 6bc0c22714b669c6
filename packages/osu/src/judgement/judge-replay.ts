/**
 * Replays the frames against a beatmap played with the replay's mods, as osu!stable
 * judges: hit windows from OD, circle radius from CS, the note lock (an unjudged object
 * ending more than 3 ms before blocks clicks on later ones; an early click within 400 ms
 * is a miss), a frame's clicks before the expiry of heads it passes, slider head, ticks,
 * repeats and the legacy end (36 ms early) earned with the 2.4x follow radius by tracking
 * begun by their time (a fresh press that does not hit the head from the next millisecond),
 * the slider judged at its end time, spinners, Relax's clicks made as the game makes them,
 * combo, score v1, 300/100/50/miss, hit errors and unstable rate.
 */
import type { Beatmap } from '../beatmap/types.js';
import {
  preparePlayable,
  sliderPositionAt,
  type PlayableBeatmap,
  type PlayObject,
} from '../beatmap/playable.js';
import { Mods } from '../replay/mods.js';
import type { Replay } from '../replay/types.js';
import type { HitResult, JudgementEvent, JudgementResult, SpinTrack } from './types.js';

const HITTABLE_RANGE = 400;
/**
 * Relax: how early before an object's time the game clicks it, and how long it keeps a key
 * down once nothing needs it (lazer's OsuModRelax.RELAX_LENIENCY and AutoGenerator.KEY_UP_DELAY).
 */
const RELAX_LENIENCY = 12;
const RELAX_KEY_UP_DELAY = 50;
/** An earlier unjudged object locks a later one only if it ends more than this before (ms). */
const NOTELOCK_LENIENCY = 3;

interface SliderState {
  tracking: boolean;
  /** When the current tracking began: a tick or end before it is not earned by it. */
  trackingSince: number;
  partsHit: number;
  parts: number;
  nextEvent: number;
  done: boolean;
}

interface SpinnerState {
  lastAngle: number | undefined;
  total: number;
  done: boolean;
}

export function judgeReplay(replay: Replay, beatmap: Beatmap): JudgementResult {
  return judgePlayable(replay, preparePlayable(beatmap, replay.mods));
}

export function judgePlayable(replay: Replay, play: PlayableBeatmap): JudgementResult {
  const objs = play.objects;
  const n = objs.length;
  const r = play.radius;
  const headDone: boolean[] = new Array(n).fill(false);
  const headJudgedAt: number[] = new Array(n).fill(Infinity);
  const headHit: boolean[] = new Array(n).fill(false);
  const objectResults: HitResult[] = new Array(n).fill(0);
  const finished: boolean[] = new Array(n).fill(false);
  const sliders = new Map<number, SliderState>();
  const spinners = new Map<number, SpinnerState>();
  const spins = new Map<number, SpinTrack>();
  const events: JudgementEvent[] = [];
  const hitErrors: number[] = [];
  const hitErrorTimes: number[] = [];
  let combo = 0;
  let maxCombo = 0;
  let score = 0;
  let n300 = 0;
  let n100 = 0;
  let n50 = 0;
  let misses = 0;
  // score v1 as the game computes it (lazer's OsuLegacyScoreSimulator.cs and
  // LegacyRulesetExtensions.CalculateDifficultyPeppyStars): the difficulty multiplier from
  // the map's own HP, OD and CS and its objects per second of drain time (whole seconds
  // between the first and last object's start, less breaks; 16 when that is 0)
  const base = play.beatmap;
  const breakLength = base.events.breaks.reduce(
    (sum, b) => sum + Math.round(b.end) - Math.round(b.start),
    0,
  );
  const drainSeconds = n
    ? Math.trunc((Math.round(objs.at(-1)!.time) - Math.round(objs[0]!.time) - breakLength) / 1000)
    : 0;
  const objectsPerDrain =
    drainSeconds !== 0 ? Math.min(Math.max((n / drainSeconds) * 8, 0), 16) : 16;
  const diffPoints = Math.round(
    ((base.difficulty.hp + base.difficulty.od + base.difficulty.cs + objectsPerDrain) / 38) * 5,
  );
  const modMult = modMultiplier(play.mods);
  const acc = (): number => {
    const total = n300 + n100 + n50 + misses;
    return total ? (300 * n300 + 100 * n100 + 50 * n50) / (300 * total) : 1;
  };

  const addCombo = (): void => {
    combo++;
    if (combo > maxCombo) maxCombo = combo;
  };
  const push = (e: Omit<JudgementEvent, 'combo' | 'score' | 'accuracy'>): void => {
    events.push({ ...e, combo, score, accuracy: acc() });
  };
  const finalResult = (
    o: PlayObject,
    result: HitResult,
    time: number,
    x: number,
    y: number,
  ): void => {
    objectResults[o.index] = result;
    finished[o.index] = true;
    if (result === 300) n300++;
    else if (result === 100) n100++;
    else if (result === 50) n50++;
    else misses++;
    if (result === 0) combo = 0;
    else {
      if (o.kind !== 'slider') addCombo();
      // the combo before this hit less one (a slider's parts have already counted), times
      // the hit value / 25 in integer maths
      const before = o.kind === 'slider' ? combo : combo - 1;
      score +=
        result +
        Math.trunc(Math.max(0, before - 1) * Math.trunc(result / 25) * diffPoints * modMult);
    }
    push({ time, objectIndex: o.index, kind: 'hit', result, x, y });
  };
  const partHit = (
    o: PlayObject,
    time: number,
    value: number,
    x: number,
    y: number,
    kind: 'tick' | 'head',
  ): void => {
    addCombo();
    score += value;
    const st = sliders.get(o.index)!;
    st.partsHit++;
    push({ time, objectIndex: o.index, kind, result: 300, x, y });
  };
  const partMiss = (o: PlayObject, time: number, x: number, y: number, breaks: boolean): void => {
    if (breaks && combo > 0) {
      combo = 0;
      push({ time, objectIndex: o.index, kind: 'sliderbreak', result: 0, x, y });
    }
  };

  for (const o of objs) {
    if (o.kind === 'slider')
      sliders.set(o.index, {
        tracking: false,
        trackingSince: Infinity,
        partsHit: 0,
        parts: 1 + o.events.length,
        nextEvent: 0,
        done: false,
      });
    else if (o.kind === 'spinner')
      spinners.set(o.index, { lastAngle: undefined, total: 0, done: false });
  }

  const frames = replay.frames;
  let firstPending = 0; // earliest object whose head is not judged
  let activeFrom = 0; // earliest object not finished
  let prevLeft = false;
  let prevRight = false;
  const spinnerAuto = (play.mods & Mods.SpunOut) !== 0 || (play.mods & Mods.Autoplay) !== 0;
  // lazer's reading of stable: 0.6 x DifficultyRange(OD, 3, 5, 7.5) spins per second of real time
  const rotationsNeeded = (o: PlayObject): number =>
    Math.floor(((o.endTime - o.time) / 1000 / play.speed) * 0.6 * difficulty(play.od, 3, 5, 7.5));

  const expireHeads = (t: number): void => {
    while (firstPending < n) {
      const o = objs[firstPending]!;
      if (headDone[firstPending] || o.kind === 'spinner') {
        if (o.kind === 'spinner') headDone[firstPending] = true;
        firstPending++;
        continue;
      }
      if (t > o.time + play.hit50) {
        headDone[o.index] = true;
        headJudgedAt[o.index] = o.time + play.hit50;
        if (o.kind === 'circle') finalResult(o, 0, o.time + play.hit50, o.x, o.y);
        else partMiss(o, o.time + play.hit50, o.x, o.y, true);
        firstPending++;
        continue;
      }
      break;
    }
  };

  // Stable's note lock (lazer's LegacyHitPolicy): a click goes to the earliest visible
  // object whose head is unjudged and under the cursor; it is refused when an earlier
  // object is still unjudged and ends more than 3 ms before this one starts, or when the
  // object just before it is part of a stack and not yet judged.
  const lockedBy = (o: PlayObject): boolean => {
    for (let k = activeFrom; k < o.index; k++)
      if (!finished[k] && objs[k]!.endTime + NOTELOCK_LENIENCY < o.time) return true;
    const prev = objs[o.index - 1];
    return prev !== undefined && prev.stackHeight > 0 && !finished[prev.index];
  };

  const click = (t: number, x: number, y: number): void => {
    let o: PlayObject | undefined;
    for (let k = firstPending; k < n; k++) {
      const c = objs[k]!;
      if (c.time - play.preempt > t) return;
      if (headDone[k] || c.kind === 'spinner') continue;
      if (Math.hypot(x - c.x, y - c.y) <= r) {
        o = c;
        break;
      }
    }
    if (!o || lockedBy(o)) return;
    const idx = o.index;
    const delta = t - o.time;
    if (Math.abs(delta) >= HITTABLE_RANGE) return;
    const abs = Math.abs(delta);
    const result: HitResult =
      abs < play.hit300 ? 300 : abs < play.hit100 ? 100 : abs < play.hit50 ? 50 : 0;
    headDone[idx] = true;
    headJudgedAt[idx] = t;
    headHit[idx] = result !== 0;
    if (o.kind === 'circle') {
      if (result !== 0) {
        hitErrors.push(delta);
        hitErrorTimes.push(t);
      }
      finalResult(o, result, t, o.x, o.y);
    } else if (result !== 0) {
      hitErrors.push(delta);
      hitErrorTimes.push(t);
      partHit(o, t, 30, o.x, o.y, 'head');
    } else partMiss(o, t, o.x, o.y, true);
  };

  // Relax: a stable replay holds no key presses (lazer: "legacy replays do not contain
  // key-presses with Relax mod, so they need to be triggered by themselves"); the keys are
  // made as osu.Game.Rulesets.Osu/Mods/OsuModRelax.cs makes them, each frame: a click
  // (release, then the other key) when the cursor is on a circle or unjudged slider head
  // from 12 ms before its time to the end of its 50 window, a held key while the cursor is
  // in a slider's follow area or a spinner needs spinning, a release 50 ms after the last
  // change once nothing needs a key.
  const relax = (play.mods & Mods.Relax) !== 0;
  let relaxDown = false;
  let relaxWasLeft = false;
  let relaxKey = 0; // the key held: each press takes the other one
  let relaxChangedAt = -Infinity;
  const relaxKeys = (t: number, x: number, y: number): number => {
    let requiresHit = false;
    let requiresHold = false;
    for (let k = activeFrom; k < n; k++) {
      const o = objs[k]!;
      if (t < o.time - RELAX_LENIENCY) break;
      if (finished[k] || (o.kind !== 'circle' && t > o.endTime)) continue;
      if (o.kind !== 'spinner' && !headDone[k])
        requiresHit ||= Math.hypot(x - o.x, y - o.y) <= r && t - o.time <= play.hit50;
      if (o.kind === 'slider') {
        const ball = sliderPositionAt(o, t);
        const reach = sliders.get(k)!.tracking ? 2.4 * r : r;
        requiresHold ||= Math.hypot(x - ball.x, y - ball.y) <= reach;
      } else if (o.kind === 'spinner') requiresHold ||= rotationsNeeded(o) > 0;
    }
    const press = (): void => {
      relaxDown = true;
      relaxChangedAt = t;
      relaxKey = relaxWasLeft ? 5 : 10;
      relaxWasLeft = !relaxWasLeft;
    };
    if (requiresHit)
      press(); // released and pressed again in the same update: a fresh click
    else if (requiresHold && !relaxDown) press();
    else if (!requiresHold && relaxDown && t - relaxChangedAt > RELAX_KEY_UP_DELAY) {
      relaxDown = false;
      relaxChangedAt = t;
    }
    return relaxDown ? relaxKey : 0;
  };

  for (let fi = 0; fi < frames.length; fi++) {
    const f = frames[fi]!;
    const t = f.time;
    const keys = relax ? relaxKeys(t, f.x, f.y) : f.keys;
    const left = (keys & 5) !== 0;
    const right = (keys & 10) !== 0;
    const down = left || right;
    // a key pressed in this frame with none held before it
    const freshPress = down && !prevLeft && !prevRight;
    // as the game orders a frame: its clicks first, then the heads whose window has passed
    if (left && !prevLeft) click(t, f.x, f.y);
    if (right && !prevRight) click(t, f.x, f.y);
    expireHeads(t);
    prevLeft = left;
    prevRight = right;

    while (activeFrom < n && finished[activeFrom]) activeFrom++;
    for (let i = activeFrom; i < n; i++) {
      const o = objs[i]!;
      if (o.time - play.preempt > t) break;
      if (finished[i]) continue;
      if (o.kind === 'slider') {
        const st = sliders.get(i)!;
        if (t >= o.time) {
          const ball = sliderPositionAt(o, t);
          const reach = st.tracking ? 2.4 * r : r;
          const was = st.tracking;
          st.tracking = down && Math.hypot(f.x - ball.x, f.y - ball.y) <= reach;
          // Tracking begun by a fresh press that did not hit this slider's head counts only
          // from the next millisecond: the game scores a point due in the press's millisecond
          // before it sees the press (ascension.osr: an end at 108968 and a press at 108968,
          // not earned). Begun by the head's hit, or by the cursor reaching the ball with a
          // key held, it counts at once (realkaede.osr: a head hit in a repeat's millisecond
          // earns it; 3yomi, tool4, etude: the cursor on the ball in an end's millisecond).
          if (st.tracking && !was)
            st.trackingSince = freshPress && !(headHit[i] && headJudgedAt[i] === t) ? t + 1 : t;
        } else st.tracking = false;
        while (st.nextEvent < o.events.length && o.events[st.nextEvent]!.time <= t) {
          const ev = o.events[st.nextEvent++]!;
          // stable earns a tick, repeat or end only with tracking that began by its time
          if (st.tracking && st.trackingSince <= ev.time)
            partHit(o, ev.time, ev.kind === 'tick' ? 10 : 30, ev.x, ev.y, 'tick');
          else partMiss(o, ev.time, ev.x, ev.y, ev.kind !== 'end');
        }
        // the game judges a slider once its time is over (not at the early legacy end), and
        // until then it holds the note lock on the objects after it
        if (st.nextEvent >= o.events.length && headDone[i] && t >= o.endTime) {
          const ratio = st.partsHit / st.parts;
          const result: HitResult = ratio >= 1 ? 300 : ratio >= 0.5 ? 100 : ratio > 0 ? 50 : 0;
          const end = o.events.at(-1)!;
          finalResult(o, result, Math.max(o.endTime, end.time), o.endX, o.endY);
        }
      } else if (o.kind === 'spinner') {
        const st = spinners.get(i)!;
        if (t >= o.time && t <= o.endTime) {
          const angle = Math.atan2(f.y - 192, f.x - 256);
          if (st.lastAngle !== undefined && (down || spinnerAuto)) {
            let d = angle - st.lastAngle;
            if (d > Math.PI) d -= 2 * Math.PI;
            if (d < -Math.PI) d += 2 * Math.PI;
            const prevT = frames[fi - 1]?.time ?? t;
            const maxD = (Math.max(0, t - prevT) / play.speed) * 0.05; // about 477 rpm of real time
            st.total += Math.sign(d) * Math.min(Math.abs(d), maxD);
          }
          st.lastAngle = angle;
          let track = spins.get(i);
          if (!track) spins.set(i, (track = { times: [], angles: [], needed: rotationsNeeded(o) }));
          track.times.push(t);
          track.angles.push(st.total);
        }
        if (t > o.endTime) {
          const need = rotationsNeeded(o);
          const rot = spinnerAuto ? need + 1 : Math.abs(st.total) / (2 * Math.PI);
          const result: HitResult =
            rot >= need
              ? 300
              : rot >= need - 1 && rot > 1
                ? 100
                : rot >= need * 0.25 && rot > 0.25
                  ? 50
                  : 0;
          finalResult(o, result, o.endTime, 256, 192);
        }
      }
    }
  }
  // anything left when the replay stops
  const endT = Infinity;
  expireHeads(endT);
  for (const o of objs) {
    if (finished[o.index]) continue;
    if (o.kind === 'slider') {
      const st = sliders.get(o.index)!;
      for (; st.nextEvent < o.events.length; st.nextEvent++)
        partMiss(o, o.events[st.nextEvent]!.time, o.endX, o.endY, true);
      const ratio = st.partsHit / st.parts;
      finalResult(
        o,
        ratio >= 1 ? 300 : ratio >= 0.5 ? 100 : ratio > 0 ? 50 : 0,
        o.endTime,
        o.endX,
        o.endY,
      );
    } else if (o.kind === 'spinner') finalResult(o, spinnerAuto ? 300 : 0, o.endTime, 256, 192);
    else finalResult(o, 0, o.time + play.hit50, o.x, o.y);
  }
  events.sort((a, b) => a.time - b.time);

  return {
    n300,
    n100,
    n50,
    misses,
    maxCombo,
    unstableRate: unstableRateOf(hitErrors, play.speed),
    accuracy: acc(),
    score,
    hitErrors,
    hitErrorTimes,
    events,
    objectResults,
    headJudgedAt,
    headHit,
    spins,
  };
}

function difficulty(d: number, min: number, mid: number, max: number): number {
  if (d > 5) return mid + ((max - mid) * (d - 5)) / 5;
  if (d < 5) return mid - ((mid - min) * (5 - d)) / 5;
  return mid;
}

function modMultiplier(mods: number): number {
  let m = 1;
  if (mods & Mods.Easy) m *= 0.5;
  if (mods & Mods.NoFail) m *= 0.5;
  if (mods & Mods.HalfTime) m *= 0.3;
  if (mods & Mods.HardRock) m *= 1.06;
  if (mods & (Mods.DoubleTime | Mods.Nightcore)) m *= 1.12;
  if (mods & Mods.Hidden) m *= 1.06;
  if (mods & Mods.Flashlight) m *= 1.12;
  if (mods & Mods.SpunOut) m *= 0.9;
  return m;
}

/** Unstable rate: 10 x the standard deviation of the hit errors, in real-time ms. */
export function unstableRateOf(hitErrors: readonly number[], speed: number): number {
  const mean = hitErrors.reduce((s, v) => s + v, 0) / Math.max(1, hitErrors.length);
  const variance =
    hitErrors.reduce((s, v) => s + (v - mean) ** 2, 0) / Math.max(1, hitErrors.length);
  return (Math.sqrt(variance) * 10) / speed;
}
