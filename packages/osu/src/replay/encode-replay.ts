/**
 * .osr encoder: the inverse of decodeReplay. Frames are written from `rawFrames` when
 * it is set (exact round trip), else from `frames` plus the seed frame.
 */
import { BinaryWriter } from './binary-reader.js';
import { lzmaEncode } from '../lzma/lzma-encode.js';
import { Mods } from './mods.js';
import type { Replay, ReplayFrame } from './types.js';

const TICKS_AT_EPOCH = 621355968000000000n;

export function encodeReplay(replay: Replay): Uint8Array {
  const w = new BinaryWriter();
  w.byte(replay.mode)
    .int(replay.version)
    .string(replay.beatmapMd5)
    .string(replay.playerName)
    .string(replay.replayMd5);
  w.short(replay.n300)
    .short(replay.n100)
    .short(replay.n50)
    .short(replay.gekis)
    .short(replay.katus)
    .short(replay.misses);
  w.int(replay.score)
    .short(replay.maxCombo)
    .byte(replay.perfect ? 1 : 0)
    .int(replay.mods | 0)
    .string(replay.lifeBar);
  const ticks =
    replay.timestampTicks ?? BigInt(replay.timestamp.getTime()) * 10000n + TICKS_AT_EPOCH;
  w.long(ticks);
  const frames = replay.rawFrames?.length ? replay.rawFrames : withSeed(replay.frames, replay.seed);
  const text =
    frames.map((f) => `${f.delta}|${fmt(f.x)}|${fmt(f.y)}|${f.keys}`).join(',') +
    (frames.length ? ',' : '');
  const compressed = frames.length ? lzmaEncode(new TextEncoder().encode(text)) : new Uint8Array(0);
  w.int(compressed.length).bytes(compressed);
  if (replay.version >= 20140721) w.long(replay.onlineScoreId);
  else if (replay.version >= 20121008) w.int(Number(replay.onlineScoreId));
  if ((replay.mods & Mods.TargetPractice) !== 0) w.double(replay.targetPracticeAccuracy ?? 0);
  if (replay.version >= 30000001 || (replay.version >= 30000000 && replay.scoreInfo)) {
    if (replay.scoreInfo) {
      const block = lzmaEncode(new TextEncoder().encode(JSON.stringify(replay.scoreInfo)));
      w.int(block.length).bytes(block);
    } else w.int(-1);
  }
  return w.toBytes();
}

function withSeed(frames: ReplayFrame[], seed: number | undefined): ReplayFrame[] {
  return seed === undefined
    ? frames
    : [...frames, { time: 0, delta: -12345, x: 0, y: 0, keys: seed }];
}

function fmt(n: number): string {
  return String(n);
}
