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

function parseFrames(bytes: Uint8Array): ReplayFrame[] {
  const text = new TextDecoder('latin1').decode(bytes);
  const frames: ReplayFrame[] = [];
  let time = 0;
  for (const part of text.split(',')) {
    if (!part.trim()) continue;
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
    if (delta !== -12345) time += delta;
    frames.push({ time, delta, x, y, keys: keys | 0 });
  }
  return frames;
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
