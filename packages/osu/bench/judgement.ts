/**
 * bench:judgement — judges every fixture replay whose beatmap is present and compares
 * with the header's 300/100/50/miss counts and max combo (written by the game).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  beatmapMd5,
  decodeReplay,
  judgeReplay,
  parseBeatmap,
  ReplayDecodeError,
} from '../src/index.js';

const dir =
  process.env.OSU_FIXTURES_DIR ??
  new URL('../../../../shared/fixtures/osu', import.meta.url).pathname;
const maps = new Map<string, string>();
for (const f of readdirSync(dir).filter((f) => f.endsWith('.osu')))
  maps.set(beatmapMd5(readFileSync(join(dir, f))), join(dir, f));

let total = 0;
let matched = 0;
const t0 = performance.now();
for (const f of readdirSync(dir)
  .filter((f) => f.endsWith('.osr'))
  .sort()) {
  let replay;
  try {
    replay = decodeReplay(readFileSync(join(dir, f)));
  } catch (err) {
    if (err instanceof ReplayDecodeError) continue;
    throw err;
  }
  const mapPath = maps.get(replay.beatmapMd5);
  if (!mapPath) continue;
  total++;
  const j = judgeReplay(replay, parseBeatmap(readFileSync(mapPath, 'utf8')));
  const got = [j.n300, j.n100, j.n50, j.misses, j.maxCombo];
  const want = [replay.n300, replay.n100, replay.n50, replay.misses, replay.maxCombo];
  const ok = got.every((v, i) => v === want[i]);
  if (ok) matched++;
  const line = `${ok ? 'OK  ' : 'DIFF'} ${f.padEnd(34)} computed ${got.join('/').padEnd(20)} header ${want.join('/').padEnd(20)} UR ${j.unstableRate.toFixed(1)}`;
  console.log(line);
}
console.log(
  `\njudgement: ${matched}/${total} replays match the header exactly (300/100/50/miss/max combo) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
);
