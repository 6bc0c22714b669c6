import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseStoryboardFile } from '../../src/beatmap/storyboard.js';
import { parseBeatmap } from '../../src/index.js';
import { StoryboardPlayer } from '../../src/render/storyboard-player.js';

describe('crafted beatmaps and storyboards stay bounded', () => {
  test('a slider with 20,000 control points keeps 2,048 and still gets a path', () => {
    const pts = Array.from({ length: 20000 }, (_, i) => `${i % 512}:${(i * 7) % 384}`).join('|');
    const bm = parseBeatmap(
      `osu file format v14\n\n[Difficulty]\nSliderMultiplier:1\n\n[TimingPoints]\n0,500,4,1,0,100,1,0\n\n[HitObjects]\n0,0,1000,2,0,B|${pts},1,300\n`,
    );
    const s = bm.hitObjects[0]!.slider!;
    assert.equal(s.controlPoints.length, 2049);
    assert.ok(s.path.length >= 2);
  });

  test('loops of loops of commands stop at the unrolled-command budget, saying so', async () => {
    const child = Array.from({ length: 2000 }, (_, i) => `  F,0,${i},${i + 1},0,1`).join('\n');
    const sprite = `Sprite,Foreground,Centre,"a.png",320,240\n L,0,100000\n${child}`;
    const osb = `[Events]\n${Array.from({ length: 30 }, () => sprite).join('\n')}`;
    const lines: string[] = [];
    await StoryboardPlayer.load(parseStoryboardFile(osb), '/nonexistent', (l) => lines.push(l));
    assert.ok(
      lines.some((l) => /storyboard past 2000000 commands/.test(l)),
      lines.join('\n'),
    );
  });
});
