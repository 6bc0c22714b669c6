/**
 * .osr decoder (osu! wiki "osr (file format)"): header, counts, mods, life bar,
 * timestamp, LZMA replay frames (with the leading skip frames and the trailing
 * -12345 seed frame), the online score id (int or long by version), the Target Practice
 * accuracy and the lazer score-info block (LZMA-compressed JSON).
 * Returns a Replay; raises ReplayDecodeError (TRUNCATED, BAD_LZMA, MALFORMED, and
 * UNSUPPORTED_MODE for modes 1-3 unless `anyMode` is set).
 */
import { BinaryReader } from './binary-reader.js';
import { LzmaError, lzmaDecode } from '../lzma/lzma-decode.js';
import { Mods } from './mods.js';
import { ReplayDecodeError } from './replay-decode-error.js';
import type { LifeBarPoint, Replay, ReplayFrame } from './types.js';

export interface DecodeReplayOptions {
  /** Decode taiko, catch and mania replays too instead of refusing them. @defaultValue false */
  anyMode?: boolean;
}

const TICKS_AT_EPOCH = 621355968000000000n;
/** Largest accepted decompressed frame data. */
const MAX_FRAME_BYTES = 64 * 1024 * 1024;

export function decodeReplay(data: Uint8Array, options: DecodeReplayOptions = {}): Replay {
  if (!(data instanceof Uint8Array))
    throw new ReplayDecodeError('MALFORMED', 'replay data must be bytes');
  const r = new BinaryReader(data);
  const mode = r.byte('mode');
  if (mode > 3) throw new ReplayDecodeError('MALFORMED', `unknown game mode ${mode}`);
  const version = r.int('version');
  const beatmapMd5 = r.string('beatmap MD5');
  const playerName = r.string('player name');
  const replayMd5 = r.string('replay MD5');
  const n300 = r.short('300 count');
  const n100 = r.short('100 count');
  const n50 = r.short('50 count');
  const gekis = r.short('geki count');
  const katus = r.short('katu count');
  const misses = r.short('miss count');
  const score = r.int('score');
  const maxCombo = r.short('max combo');
  const perfect = r.byte('perfect') !== 0;
  const mods = r.int('mods') >>> 0;
  const lifeBar = r.string('life bar');
  const timestampTicks = r.long('timestamp');
  const compressedLength = r.int('replay data length');
  if (compressedLength < 0) throw new ReplayDecodeError('MALFORMED', 'negative replay data length');
  const compressed = r.bytes(compressedLength, 'replay data');
  let onlineScoreId = 0n;
  if (version >= 20140721) onlineScoreId = r.long('online score id');
  else if (version >= 20121008) onlineScoreId = BigInt(r.int('online score id'));
  let targetPracticeAccuracy: number | undefined;
  if ((mods & Mods.TargetPractice) !== 0)
    targetPracticeAccuracy = r.double('target practice accuracy');
  let scoreInfo: Record<string, unknown> | undefined;
  if (version >= 30000001 || (version >= 30000000 && r.remaining >= 4)) {
    const len = r.int('score info length');
    if (len > 0) {
      const json = new TextDecoder().decode(lzma(r.bytes(len, 'score info'), 'score info'));
      try {
        const parsed: unknown = JSON.parse(json);
        if (parsed && typeof parsed === 'object') scoreInfo = parsed as Record<string, unknown>;
      } catch {
        throw new ReplayDecodeError('MALFORMED', 'score info block is not JSON');
      }
    }
  }

  if (!/^[0-9a-fA-F]{32}$/.test(beatmapMd5))
    throw new ReplayDecodeError('MALFORMED', 'beatmap MD5 is not 32 hex characters');
  const rawFrames = compressedLength > 0 ? parseFrames(lzma(compressed, 'replay frames')) : [];
  let seed: number | undefined;
  let frames = rawFrames;
  const last = rawFrames[rawFrames.length - 1];
  if (last && last.delta === -12345) {
    seed = last.keys;
    frames = rawFrames.slice(0, -1);
  }
  if (mode !== 0 && !options.anyMode) {
    throw new ReplayDecodeError(
      'UNSUPPORTED_MODE',
      `game mode ${mode} is not supported (only osu! standard)`,
    );
  }
  const ms = Number((timestampTicks - TICKS_AT_EPOCH) / 10000n);
  return {
    mode,
    version,
    beatmapMd5: beatmapMd5.toLowerCase(),
    playerName,
    replayMd5,
    n300,
    n100,
    n50,
    gekis,
    katus,
    misses,
    score,
    maxCombo,
    perfect,
    mods,
    lifeBar,
    lifeBarPoints: parseLifeBar(lifeBar),
    timestamp: new Date(Number.isFinite(ms) ? ms : 0),
    timestampTicks,
    frames,
    seed,
    rawFrames,
    onlineScoreId,
    targetPracticeAccuracy,
    scoreInfo,
  };
}

function lzma(bytes: Uint8Array, what: string): Uint8Array {
  try {
    return lzmaDecode(bytes, MAX_FRAME_BYTES);
  } catch (err) {
    if (err instanceof LzmaError)
      throw new ReplayDecodeError('BAD_LZMA', `${what}: ${err.message}`);
    throw err;
  }
}

/**
 * The frames of the decompressed text `w|x|y|z,w|x|y|z,…`. Parts of the common form
 * (each field `-?digits(.digits)?`, few enough digits to be exact) are read straight
 * from the bytes; any other part is read by `parseFramePart`, as `Number` reads it, so
 * the result is the same either way (render admission decodes every submitted replay).
 */
export function parseFrames(bytes: Uint8Array): ReplayFrame[] {
  const frames: ReplayFrame[] = [];
  const fields = [0, 0, 0, 0];
  let time = 0;
  let start = 0;
  while (start <= bytes.length) {
    let end = bytes.indexOf(44, start); // ','
    if (end < 0) end = bytes.length;
    if (end > start && readSimpleFields(bytes, start, end, fields)) {
      const delta = fields[0]!;
      if (delta !== -12345) time += delta;
      frames.push({ time, delta, x: fields[1]!, y: fields[2]!, keys: fields[3]! | 0 });
    } else {
      const frame = parseFramePart(new TextDecoder('latin1').decode(bytes.subarray(start, end)));
      if (frame) {
        if (frame.delta !== -12345) time += frame.delta;
        frames.push({ time, delta: frame.delta, x: frame.x, y: frame.y, keys: frame.keys });
      }
    }
    start = end + 1;
  }
  return frames;
}

const POWERS_OF_TEN = Array.from({ length: 16 }, (_, i) => 10 ** i);

/**
 * Reads four `|`-separated fields of the form `-?digits(.digits)?` with at most 15
 * digits each from `bytes[start, end)` into `out`; false for anything else. At most 15
 * digits keep the digits an exact integer, and dividing it by a power of ten up to 10¹⁵
 * rounds once, correctly, so the value is the one `Number` gives.
 */
function readSimpleFields(bytes: Uint8Array, start: number, end: number, out: number[]): boolean {
  let i = start;
  for (let field = 0; field < 4; field += 1) {
    const negative = bytes[i] === 45; // '-'
    if (negative) i += 1;
    let digits = 0;
    let fraction = -1;
    let mantissa = 0;
    for (; i < end; i += 1) {
      const c = bytes[i]!;
      if (c >= 48 && c <= 57) {
        mantissa = mantissa * 10 + (c - 48);
        digits += 1;
        if (fraction >= 0) fraction += 1;
      } else if (c === 46 && fraction < 0 && digits > 0)
        fraction = 0; // '.'
      else break;
    }
    if (digits === 0 || digits > 15 || fraction === 0) return false;
    const value = fraction > 0 ? mantissa / POWERS_OF_TEN[fraction]! : mantissa;
    out[field] = negative ? -value : value;
    if (field < 3) {
      if (i >= end || bytes[i] !== 124) return false; // '|'
      i += 1;
    }
  }
  return i === end;
}

/** One part of the frame text as `Number` reads its fields; undefined for a blank part. */
function parseFramePart(part: string): Omit<ReplayFrame, 'time'> | undefined {
  if (!part.trim()) return undefined;
  const f = part.split('|');
  if (f.length !== 4) throw new ReplayDecodeError('MALFORMED', 'replay frame without 4 fields');
  const delta = Number(f[0]);
  const x = Number(f[1]);
  const y = Number(f[2]);
  const keys = Number(f[3]);
  if (
    !Number.isFinite(delta) ||
    !Number.isFinite(x) ||
    !Number.isFinite(y) ||
    !Number.isFinite(keys)
  ) {
    throw new ReplayDecodeError('MALFORMED', 'replay frame with a non-numeric field');
  }
  return { delta, x, y, keys: keys | 0 };
}

function parseLifeBar(text: string): LifeBarPoint[] {
  const points: LifeBarPoint[] = [];
  for (const part of text.split(',')) {
    const [t, l] = part.split('|');
    const time = Number(t);
    const life = Number(l);
    if (part && Number.isFinite(time) && Number.isFinite(life)) points.push({ time, life });
  }
  return points;
}
