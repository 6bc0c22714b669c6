/**
 * .osu beatmap parser (formats v3 to v14): [General], [Metadata], [Difficulty],
 * [Events] (background, video, breaks, storyboard), [TimingPoints], [Colours] and
 * [HitObjects] with slider paths, durations and tick spacing computed.
 * Returns a Beatmap; raises BeatmapParseError when the text is not a beatmap.
 */
import { computeSliderPath } from './slider-path.js';
import { parseStoryboardLines } from './storyboard.js';
import type {
  Beatmap,
  BeatmapEvents,
  CurveType,
  HitObject,
  HitSample,
  TimingPoint,
  Vec2,
} from './types.js';

/** Control points kept per slider. */
const MAX_CONTROL_POINTS = 2048;

export class BeatmapParseError extends Error {
  override readonly name = 'BeatmapParseError';
}

const num = (s: string | undefined, def: number): number => {
  const n = Number(s);
  return s !== undefined && s.trim() !== '' && Number.isFinite(n) ? n : def;
};
const unquote = (s: string): string =>
  s
    .trim()
    .replace(/^"(.*)"$/, '$1')
    .replace(/\\/g, '/');

export function parseBeatmap(text: string): Beatmap {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const lines = text.split(/\r?\n/);
  const header = lines.find((l) => l.trim() !== '') ?? '';
  const vm = /osu file format v(\d+)/.exec(header);
  if (!vm) throw new BeatmapParseError('not an osu! beatmap (no "osu file format" header)');
  const formatVersion = Number(vm[1]);

  const sections = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of lines) {
    const t = line.trim();
    if (t.startsWith('[') && t.endsWith(']')) {
      current = [];
      sections.set(t.slice(1, -1), current);
    } else if (current && t && !t.startsWith('//')) current.push(line);
  }
  const kv = (name: string): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const l of sections.get(name) ?? []) {
      const i = l.indexOf(':');
      if (i > 0) out[l.slice(0, i).trim()] = l.slice(i + 1).trim();
    }
    return out;
  };
  const general = kv('General');
  const meta = kv('Metadata');
  const diff = kv('Difficulty');
  const od = num(diff.OverallDifficulty, 5);
  const difficulty = {
    hp: num(diff.HPDrainRate, 5),
    cs: num(diff.CircleSize, 5),
    od,
    ar: num(diff.ApproachRate, od),
    sliderMultiplier: num(diff.SliderMultiplier, 1.4),
    sliderTickRate: num(diff.SliderTickRate, 1),
  };

  const timingPoints: TimingPoint[] = [];
  for (const l of sections.get('TimingPoints') ?? []) {
    const p = l.split(',');
    if (p.length < 2) continue;
    const beatLength = num(p[1], NaN);
    const time = num(p[0], NaN);
    if (!Number.isFinite(beatLength) || !Number.isFinite(time)) continue;
    const effects = num(p[7], 0);
    timingPoints.push({
      time,
      beatLength,
      meter: num(p[2], 4),
      sampleSet: num(p[3], 0),
      sampleIndex: num(p[4], 0),
      volume: num(p[5], 100),
      uninherited:
        p[6] === undefined
          ? beatLength > 0
          : p[6].trim() === '1' || (p[6].trim() !== '0' && beatLength > 0),
      kiai: (effects & 1) !== 0,
    });
  }
  timingPoints.sort(
    (a, b) => a.time - b.time || (a.uninherited === b.uninherited ? 0 : a.uninherited ? -1 : 1),
  );

  const comboColours: [number, number, number][] = [];
  let sliderBorder: [number, number, number] | undefined;
  let sliderTrackOverride: [number, number, number] | undefined;
  const colours = kv('Colours');
  const rgb = (s: string): [number, number, number] | undefined => {
    const c = s.split(',').map((v) => Number(v.trim()));
    return c.length >= 3 && c.slice(0, 3).every((v) => Number.isFinite(v))
      ? [c[0]!, c[1]!, c[2]!]
      : undefined;
  };
  for (let i = 1; i <= 8; i++) {
    const c = colours[`Combo${i}`];
    const v = c ? rgb(c) : undefined;
    if (v) comboColours.push(v);
  }
  if (colours.SliderBorder) sliderBorder = rgb(colours.SliderBorder);
  if (colours.SliderTrackOverride) sliderTrackOverride = rgb(colours.SliderTrackOverride);

  const events = parseEvents(sections.get('Events') ?? []);
  const hitObjects = parseHitObjects(
    sections.get('HitObjects') ?? [],
    timingPoints,
    difficulty,
    formatVersion,
    comboColours.length || 4,
  );

  return {
    formatVersion,
    general,
    audioFilename: (general.AudioFilename ?? '').replace(/\\/g, '/'),
    audioLeadIn: num(general.AudioLeadIn, 0),
    stackLeniency: num(general.StackLeniency, 0.7),
    mode: num(general.Mode, 0),
    metadata: {
      title: meta.Title ?? '',
      titleUnicode: meta.TitleUnicode ?? meta.Title ?? '',
      artist: meta.Artist ?? '',
      artistUnicode: meta.ArtistUnicode ?? meta.Artist ?? '',
      creator: meta.Creator ?? '',
      version: meta.Version ?? '',
      source: meta.Source ?? '',
      tags: meta.Tags ?? '',
      beatmapId: num(meta.BeatmapID, 0),
      beatmapSetId: num(meta.BeatmapSetID, -1),
    },
    difficulty,
    events,
    backgroundFilename: events.backgroundFilename,
    timingPoints,
    comboColours,
    sliderBorder,
    sliderTrackOverride,
    hitObjects,
  };
}

function parseEvents(lines: string[]): BeatmapEvents {
  const events: BeatmapEvents = {
    backgroundFilename: undefined,
    videoFilename: undefined,
    videoOffset: 0,
    breaks: [],
    storyboard: [],
  };
  const storyboardLines: string[] = [];
  for (const line of lines) {
    if (/^[ _]/.test(line)) {
      storyboardLines.push(line);
      continue;
    }
    const p = line.split(',');
    const kind = p[0]!.trim();
    if (kind === '0' && p[2]) {
      events.backgroundFilename ??= unquote(p[2]);
    } else if ((kind === '1' || kind === 'Video') && p[2]) {
      events.videoFilename = unquote(p[2]);
      events.videoOffset = num(p[1], 0);
    } else if ((kind === '2' || kind === 'Break') && p.length >= 3) {
      events.breaks.push({ start: num(p[1], 0), end: num(p[2], 0) });
    } else storyboardLines.push(line);
  }
  events.storyboard = parseStoryboardLines(storyboardLines);
  return events;
}

/** The uninherited (beat length) and inherited (SV) points in force at `time`. */
export function timingAt(points: TimingPoint[], time: number): { beatLength: number; sv: number } {
  let beatLength = 500;
  let sv = 1;
  let foundUninherited = false;
  for (const p of points) {
    if (p.time > time + 0.0001 && foundUninherited) break;
    if (p.uninherited) {
      if (p.time <= time + 0.0001 || !foundUninherited) {
        beatLength = p.beatLength;
        sv = 1;
        foundUninherited = true;
      }
    } else if (p.time <= time + 0.0001) {
      sv = p.beatLength < 0 ? 100 / -Math.min(Math.max(p.beatLength, -1000), -10) : 1;
    }
  }
  return { beatLength, sv };
}

function parseHitObjects(
  lines: string[],
  timing: TimingPoint[],
  diff: Beatmap['difficulty'],
  formatVersion: number,
  colourCount: number,
): HitObject[] {
  const objects: HitObject[] = [];
  let comboIndex = 0;
  let comboNumber = 0;
  let first = true;
  for (const line of lines) {
    const p = line.split(',');
    if (p.length < 4) continue;
    const x = num(p[0], NaN);
    const y = num(p[1], NaN);
    const time = num(p[2], NaN);
    const type = num(p[3], 0);
    if (![x, y, time].every(Number.isFinite)) continue;
    const hitSound = num(p[4], 0);
    const isSpinner = (type & 8) !== 0;
    let newCombo = (type & 4) !== 0 || first;
    const comboSkip = (type >> 4) & 7;
    // numbered below, once the combo is known
    const isSlider = (type & 2) !== 0 && !!p[5];
    const hitSample = parseHitSample(isSlider ? p[10] : isSpinner ? p[6] : p[5]);
    const common = {
      x,
      y,
      time,
      newCombo,
      comboSkip,
      hitSound,
      hitSample,
      comboIndex: 0,
      comboNumber: 0,
    };
    let obj: HitObject;
    if (isSlider) {
      const curve = p[5]!.split('|');
      let curveType = (curve[0]!.trim()[0] ?? 'B') as CurveType;
      if (!'LPBC'.includes(curveType)) curveType = 'B';
      const controlPoints: Vec2[] = [{ x, y }];
      // a real slider has at most a few hundred points; a crafted one is cut
      for (const c of curve.slice(1, MAX_CONTROL_POINTS + 1)) {
        const [cx, cy] = c.split(':').map(Number);
        if (Number.isFinite(cx) && Number.isFinite(cy)) controlPoints.push({ x: cx!, y: cy! });
      }
      // old maps repeat the head as first control point
      if (
        controlPoints.length > 2 &&
        controlPoints[1]!.x === x &&
        controlPoints[1]!.y === y &&
        formatVersion < 6
      )
        controlPoints.splice(1, 1);
      if (curveType === 'P' && controlPoints.length !== 3) curveType = 'B';
      const slides = Math.max(1, Math.min(1000, num(p[6], 1)));
      let pixelLength = num(p[7], 0);
      const built = computeSliderPath(curveType, controlPoints, pixelLength > 0 ? pixelLength : 0);
      if (!(pixelLength > 0)) pixelLength = built.cumulative[built.cumulative.length - 1] ?? 0;
      const { beatLength, sv } = timingAt(timing, time);
      const velocity = (diff.sliderMultiplier * 100 * sv) / beatLength;
      const spanDuration = velocity > 0 ? pixelLength / velocity : 0;
      const tickDistance =
        ((diff.sliderMultiplier * 100 * sv) / diff.sliderTickRate) *
        (formatVersion < 8 ? 1 / sv : 1);
      obj = {
        ...common,
        kind: 'slider',
        // the game keeps times as integers: the end is truncated
        endTime: time + Math.floor(spanDuration * slides),
        slider: {
          curveType,
          controlPoints,
          slides,
          pixelLength,
          path: built.path,
          cumulative: built.cumulative,
          spanDuration,
          velocity,
          tickDistance,
          edgeSounds: edgeList(p[8], slides + 1, (e) => num(e, hitSound)),
          edgeSets: edgeList(p[9], slides + 1, (e) => {
            const [n, a] = e.split(':');
            return [num(n, 0), num(a, 0)] as [number, number];
          }),
        },
      };
    } else if (isSpinner) {
      obj = {
        ...common,
        kind: 'spinner',
        x: 256,
        y: 192,
        endTime: Math.max(time, num(p[5], time)),
        newCombo: true,
        slider: undefined,
      };
    } else if ((type & 128) !== 0) {
      obj = { ...common, kind: 'hold', endTime: num(p[5]?.split(':')[0], time), slider: undefined };
    } else {
      obj = { ...common, kind: 'circle', endTime: time, slider: undefined };
    }
    // combo numbering: spinners start a new combo for the next object
    const prev = objects[objects.length - 1];
    if (prev?.kind === 'spinner') newCombo = true;
    if (obj.kind !== 'spinner') {
      if (newCombo && !first) {
        comboIndex = (comboIndex + 1 + ((type & 4) !== 0 ? comboSkip : 0)) % colourCount;
        comboNumber = 0;
      }
      comboNumber++;
      first = false;
    }
    obj.comboIndex = comboIndex;
    obj.comboNumber = comboNumber;
    objects.push(obj);
  }
  objects.sort((a, b) => a.time - b.time);
  return objects;
}

/** `normalSet:additionSet:index:volume:filename`; anything missing or malformed inherits. */
function parseHitSample(field: string | undefined): HitSample {
  const p = (field ?? '').split(':');
  const int = (s: string | undefined, max: number): number => {
    const n = Math.trunc(num(s, 0));
    return n >= 0 && n <= max ? n : 0;
  };
  return {
    normalSet: int(p[0], 3),
    additionSet: int(p[1], 3),
    index: int(p[2], 1_000_000),
    volume: int(p[3], 100),
    filename: (p.slice(4).join(':') ?? '').trim(),
  };
}

/** One entry per slider edge (at most `count`, as many as the map gives); the rest is filled by `parse('')`. */
function edgeList<T>(field: string | undefined, count: number, parse: (e: string) => T): T[] {
  const given = field ? field.split('|').slice(0, count) : [];
  const out = given.map(parse);
  while (out.length < count) out.push(parse(''));
  return out;
}
