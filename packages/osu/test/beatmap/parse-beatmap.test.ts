import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { zipSync } from 'fflate';
import { BeatmapLibrary, beatmapMd5, decodeReplay, parseBeatmap } from '../../src/index.js';
import { fixture, fixtureNames, fixturesDir, skipWithoutFixtures } from '../helpers.js';

const skip = skipWithoutFixtures();

describe('parseBeatmap on fixtures', { skip }, () => {
  test('every fixture beatmap parses', () => {
    for (const name of fixtureNames('.osu')) {
      const b = parseBeatmap(fixture(name).toString('utf8'));
      assert.ok(b.hitObjects.length > 0, name);
      assert.ok(b.metadata.title, name);
      for (const o of b.hitObjects) {
        assert.ok(Number.isFinite(o.time) && o.endTime >= o.time, name);
        if (o.slider) {
          assert.ok(o.slider.path.length >= 2, name);
          assert.ok(
            Math.abs(o.slider.cumulative.at(-1)! - o.slider.pixelLength) < 1,
            `${name} slider length`,
          );
        }
      }
    }
  });

  test('metadata, difficulty and curve types', () => {
    const b = parseBeatmap(fixture('realmagnolia.osu').toString('utf8'));
    assert.equal(b.formatVersion, 13);
    assert.equal(b.metadata.title, 'Magnolia');
    assert.equal(b.metadata.version, "AngelHoney's ExtrA");
    assert.equal(b.difficulty.cs, 4);
    assert.equal(b.backgroundFilename, 'bg3.jpg');
    const types = new Set(b.hitObjects.map((o) => o.slider?.curveType).filter(Boolean));
    assert.deepEqual([...types].sort(), ['B', 'L', 'P']);
    assert.equal(b.hitObjects.filter((o) => o.kind === 'spinner').length, 3);
    const old = parseBeatmap(fixture('badeustack.osu').toString('utf8'));
    assert.equal(old.formatVersion, 3);
  });

  test('beatmapMd5 matches the replay header', () => {
    assert.equal(
      beatmapMd5(fixture('realmagnolia.osu')),
      decodeReplay(fixture('realmagnolia.osr')).beatmapMd5,
    );
  });

  test('BeatmapLibrary finds .osu files and maps inside .osz archives', async () => {
    const lib = new BeatmapLibrary([fixturesDir]);
    const hit = await lib.findByMd5(decodeReplay(fixture('dearbrave3.osr')).beatmapMd5);
    assert.ok(hit?.osuPath.endsWith('.osu'));
    const dir = mkdtempSync(join(tmpdir(), 'osz-test-'));
    writeFileSync(
      join(dir, 'set.osz'),
      zipSync({
        'map.osu': fixture('tool.osu'),
        'audio.mp3': new Uint8Array(4),
        '../evil.txt': new Uint8Array(1),
      }),
    );
    const lib2 = new BeatmapLibrary([dir], { cacheDir: join(dir, 'cache') });
    const found = await lib2.findByMd5(beatmapMd5(fixture('tool.osu')));
    assert.ok(found);
    assert.equal(
      beatmapMd5(fixture('tool.osu')),
      beatmapMd5(
        new Uint8Array(await import('node:fs/promises').then((f) => f.readFile(found.osuPath))),
      ),
    );
    assert.ok(found.folder.startsWith(join(dir, 'cache')));
    assert.equal(await lib2.findByMd5('0'.repeat(32)), undefined);
    // a map added later is found after refresh()
    writeFileSync(join(dir, 'later.osu'), fixture('yomi.osu'));
    lib2.refresh();
    assert.ok(await lib2.findByMd5(beatmapMd5(fixture('yomi.osu'))));
  });
});

test('synthetic beatmap: all curve types, spinner, events and colours', () => {
  const text = `osu file format v14

[General]
AudioFilename: audio.mp3
StackLeniency: 0.5

[Metadata]
Title:T
Artist:A
Creator:C
Version:V

[Difficulty]
HPDrainRate:5
CircleSize:4
OverallDifficulty:8
ApproachRate:9
SliderMultiplier:1.4
SliderTickRate:1

[Events]
0,0,"bg.jpg",0,0
Video,-200,"vid.mp4"
2,5000,8000
Sprite,Foreground,Centre,"sb/a.png",320,240
 F,0,1000,2000,0,1
 L,0,2
  M,0,0,500,100,100,200,200

[TimingPoints]
0,500,4,2,0,100,1,0
1000,-50,4,2,0,100,0,1

[Colours]
Combo1 : 255,0,0
Combo2 : 0,255,0

[HitObjects]
100,100,0,5,0,0:0:0:0:
100,100,500,2,0,L|200:100,1,100
100,100,1000,6,0,P|150:50|200:100,2,100
100,100,2000,2,0,B|150:50|150:50|200:100,1,150
100,100,3000,2,0,C|150:50|200:100|250:50,1,150
256,192,4000,12,0,4500,0:0:0:0:
`;
  const b = parseBeatmap(text);
  assert.equal(b.audioFilename, 'audio.mp3');
  assert.equal(b.stackLeniency, 0.5);
  assert.equal(b.events.videoFilename, 'vid.mp4');
  assert.equal(b.events.videoOffset, -200);
  assert.deepEqual(b.events.breaks, [{ start: 5000, end: 8000 }]);
  assert.equal(b.events.storyboard.length, 1);
  assert.equal(b.events.storyboard[0]!.commands.length, 2);
  assert.equal(b.events.storyboard[0]!.commands[1]!.children.length, 1);
  assert.deepEqual(b.comboColours, [
    [255, 0, 0],
    [0, 255, 0],
  ]);
  const [c, l, p, bz, cm, sp] = b.hitObjects;
  assert.equal(c!.kind, 'circle');
  assert.equal(l!.slider!.curveType, 'L');
  assert.equal(l!.endTime, 500 + Math.floor(100 / ((1.4 * 100) / 500)));
  assert.equal(p!.slider!.curveType, 'P');
  assert.equal(p!.slider!.slides, 2);
  // SV x2 from the inherited point at 1000
  assert.ok(Math.abs(p!.slider!.velocity - (1.4 * 100 * 2) / 500) < 1e-9);
  assert.equal(bz!.slider!.curveType, 'B');
  assert.equal(cm!.slider!.curveType, 'C');
  assert.equal(sp!.kind, 'spinner');
  assert.equal(sp!.endTime, 4500);
  assert.equal(p!.comboIndex, 1);
  // perfect circle through (100,100), (150,50), (200,100): centre (150,100), radius 50
  const mid = p!.slider!.path[Math.floor(p!.slider!.path.length / 2)]!;
  assert.ok(Math.abs(Math.hypot(mid.x - 150, mid.y - 100) - 50) < 0.5);
});
