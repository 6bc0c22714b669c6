/**
 * bench:judgement — judges every fixture replay whose beatmap is present and compares
 * with the header's 300/100/50/miss counts and max combo (written by the game). Every
 * other replay is listed with the reason it was not judged (another game mode, its
 * beatmap absent, undecodable), so the figure never hides one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  beatmapMd5,
  decodeReplay,
  judgeReplay,
  modsToString,
  parseBeatmap,
  ReplayDecodeError,
} from '../src/index.js';

const dir =
  process.env.OSU_FIXTURES_DIR ??
  new URL('../../../../shared/fixtures/osu', import.meta.url).pathname;
const maps = new Map<string, string>();
for (const f of readdirSync(dir).filter((f) => f.endsWith('.osu')))
  maps.set(beatmapMd5(readFileSync(join(dir, f))), join(dir, f));

const MODES = ['osu!', 'taiko', 'catch', 'mania'];
let total = 0;
let matched = 0;
const skipped: string[] = [];
const t0 = performance.now();
for (const f of readdirSync(dir)
  .filter((f) => f.endsWith('.osr'))
  .sort()) {
  let replay;
  try {
    replay = decodeReplay(readFileSync(join(dir, f)), { anyMode: true });
  } catch (err) {
    if (!(err instanceof ReplayDecodeError)) throw err;
    skipped.push(`SKIP ${f.padEnd(34)} not decoded: ${err.message}`);
    continue;
  }
  if (replay.mode !== 0) {
    skipped.push(
      `SKIP ${f.padEnd(34)} mode ${replay.mode} (${MODES[replay.mode]}): only osu! is judged`,
    );
    continue;
  }
  const mapPath = maps.get(replay.beatmapMd5);
  if (!mapPath) {
    skipped.push(
      `SKIP ${f.padEnd(34)} its beatmap (MD5 ${replay.beatmapMd5}) is not among the fixtures`,
    );
    continue;
  }
  total++;
  const j = judgeReplay(replay, parseBeatmap(readFileSync(mapPath, 'utf8')));
  const got = [j.n300, j.n100, j.n50, j.misses, j.maxCombo];
  const want = [replay.n300, replay.n100, replay.n50, replay.misses, replay.maxCombo];
  const ok = got.every((v, i) => v === want[i]);
  if (ok) matched++;
  const line = `${ok ? 'OK  ' : 'DIFF'} ${f.padEnd(34)} ${modsToString(replay.mods).padEnd(8)} computed ${got.join('/').padEnd(20)} header ${want.join('/').padEnd(20)} UR ${j.unstableRate.toFixed(1)}`;
  console.log(line);
}
for (const line of skipped) console.log(line);
console.log(
  `\njudgement: ${matched}/${total} replays match the header exactly (300/100/50/miss/max combo) in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${skipped.length} not judged (listed above)`,
);
