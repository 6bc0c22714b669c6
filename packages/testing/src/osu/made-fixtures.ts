/**
 * The osu! fixture set the project makes itself, so that no test but those of fidelity
 * to real game files needs `../shared/fixtures`. Written once per content into a folder
 * under the system temp dir (every test process of a run shares it) and read from there
 * like a beatmap library:
 *
 * | file | what |
 * |---|---|
 * | `made.osu` | the beatmap (see made-beatmap.ts), title {@link MADE_BEATMAP_TITLE} |
 * | `made.osb` | a storyboard beside it |
 * | `audio.wav`, `bg.png`, `sb-dot.png` | its audio, background and storyboard sprite |
 * | `perfect.osr`, `missed.osr` | osu! standard replays of it with known judgements |
 * | `other-map.osr` | the perfect play naming a beatmap absent from the set |
 * | `lazer.osr` | the perfect play in the lazer format (score-info block) |
 * | `taiko.osr`, `catch.osr`, `mania.osr` | the same play in the other modes' headers |
 * | `made-skin.osk` | a skin: `Made Skin/skin.ini`, a cursor and a hit circle |
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MADE_BEATMAP_OSU, MADE_BEATMAP_TITLE, MADE_STORYBOARD_OSB } from './made-beatmap.js';
import { madeReplays, type KnownJudgement } from './made-replays.js';
import { sineWav, solidPng, zip } from './media.js';

export { MADE_BEATMAP_TITLE };
export type { KnownJudgement };

/** Names of the made files, by role. */
export const MADE_OSU = {
  beatmap: 'made.osu',
  storyboard: 'made.osb',
  audio: 'audio.wav',
  background: 'bg.png',
  perfectReplay: 'perfect.osr',
  missedReplay: 'missed.osr',
  otherMapReplay: 'other-map.osr',
  lazerReplay: 'lazer.osr',
  taikoReplay: 'taiko.osr',
  catchReplay: 'catch.osr',
  maniaReplay: 'mania.osr',
  skin: 'made-skin.osk',
  skinName: 'Made Skin',
} as const;

const MD5 = createHash('md5').update(MADE_BEATMAP_OSU).digest('hex');

function madeFiles(): { files: Map<string, Uint8Array>; judgements: Map<string, KnownJudgement> } {
  const files = new Map<string, Uint8Array>([
    [MADE_OSU.beatmap, Buffer.from(MADE_BEATMAP_OSU)],
    [MADE_OSU.storyboard, Buffer.from(MADE_STORYBOARD_OSB)],
    [MADE_OSU.audio, sineWav(3)],
    [MADE_OSU.background, solidPng(64, 48, [40, 60, 120, 255])],
    ['sb-dot.png', solidPng(16, 16, [255, 255, 255, 255])],
    [
      MADE_OSU.skin,
      zip({
        [`${MADE_OSU.skinName}/skin.ini`]: Buffer.from(
          `[General]\nName: ${MADE_OSU.skinName}\nAuthor: packages-testing\n\n[Colours]\nCombo1: 0,200,0\n`,
        ),
        [`${MADE_OSU.skinName}/cursor.png`]: solidPng(32, 32, [255, 0, 255, 255]),
        [`${MADE_OSU.skinName}/hitcircle.png`]: solidPng(64, 64, [200, 200, 200, 255]),
      }),
    ],
  ]);
  const judgements = new Map<string, KnownJudgement>();
  for (const [name, replay] of Object.entries(madeReplays(MD5))) {
    files.set(`${name}.osr`, replay.bytes);
    judgements.set(`${name}.osr`, replay.judgement);
  }
  return { files, judgements };
}

let made: { dir: string; judgements: Map<string, KnownJudgement> } | undefined;

function ensureMade(): { dir: string; judgements: Map<string, KnownJudgement> } {
  if (made) return made;
  const { files, judgements } = madeFiles();
  const hash = createHash('sha256');
  for (const [name, data] of [...files].sort(([a], [b]) => a.localeCompare(b)))
    hash.update(name).update(data);
  const dir = join(tmpdir(), `platform-made-osu-${hash.digest('hex').slice(0, 16)}`);
  if (!existsSync(dir)) {
    // written aside then renamed into place, so a concurrent test process never sees half
    const aside = `${dir}.${process.pid}.${Date.now()}`;
    mkdirSync(aside, { recursive: true });
    for (const [name, data] of files) writeFileSync(join(aside, name), data);
    try {
      renameSync(aside, dir);
    } catch (err) {
      rmSync(aside, { recursive: true, force: true });
      if (!existsSync(dir)) throw err;
    }
  }
  made = { dir, judgements };
  return made;
}

/** The folder of the made fixture set (written on first use). */
export function madeOsuFixturesDir(): string {
  return ensureMade().dir;
}

/** Path of one made fixture file; throws for a name the set does not have. */
export function madeOsuFixture(name: string): string {
  const path = join(madeOsuFixturesDir(), name);
  if (!existsSync(path)) throw new Error(`the made osu! fixture set has no ${name}`);
  return path;
}

/** The judgement a made replay was built to get (also written in its header). */
export function madeReplayJudgement(name: string): KnownJudgement {
  const judgement = ensureMade().judgements.get(name);
  if (!judgement) throw new Error(`the made osu! fixture set has no replay ${name}`);
  return judgement;
}

/** The MD5 of the made beatmap, as replays name it. */
export const MADE_BEATMAP_MD5 = MD5;
