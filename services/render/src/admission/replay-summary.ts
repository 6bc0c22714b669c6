/**
 * Decodes a replay and keeps what admission needs: the game mode and the header fields
 * stored with the job. Runs inline for small files and inside the decode threads for
 * large ones (`replay-decoder.ts`); throws the decoder's error for a bad file.
 */
import { decodeReplay, modsToString, type Replay } from '@platform/osu';
import type { ReplayInfo } from '../jobs/job-store.js';

export interface ReplaySummary {
  mode: number;
  info: ReplayInfo;
}

export function summarizeReplay(bytes: Uint8Array): ReplaySummary {
  const replay = decodeReplay(bytes);
  return { mode: replay.mode, info: replayInfoOf(replay) };
}

export function replayInfoOf(replay: Replay): ReplayInfo {
  const judged = replay.n300 + replay.n100 + replay.n50 + replay.misses;
  const accuracy =
    judged === 0
      ? 0
      : ((300 * replay.n300 + 100 * replay.n100 + 50 * replay.n50) / (300 * judged)) * 100;
  return {
    playerName: replay.playerName,
    beatmapMd5: replay.beatmapMd5,
    mods: modsToString(replay.mods),
    score: replay.score,
    maxCombo: replay.maxCombo,
    perfect: replay.perfect,
    n300: replay.n300,
    n100: replay.n100,
    n50: replay.n50,
    gekis: replay.gekis,
    katus: replay.katus,
    misses: replay.misses,
    accuracy: Math.round(accuracy * 100) / 100,
    playedAt: Number.isNaN(replay.timestamp.getTime()) ? '' : replay.timestamp.toISOString(),
  };
}
