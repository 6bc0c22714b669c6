import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createCanvas } from '@napi-rs/canvas';
import { parseStoryboardFile } from '../../src/index.js';
import { ease, StoryboardPlayer } from '../../src/render/storyboard-player.js';

const dir = mkdtempSync(join(tmpdir(), 'osu-sb-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function png(colour: string): Buffer {
  const c = createCanvas(10, 10);
  const ctx = c.getContext('2d');
  ctx.fillStyle = colour;
  ctx.fillRect(0, 0, 10, 10);
  return c.encodeSync('png');
}

test('storyboard: variables, loops, move, fade and animation frames', async () => {
  writeFileSync(join(dir, 'dot.png'), png('rgb(255,0,0)'));
  writeFileSync(join(dir, 'anim0.png'), png('rgb(0,255,0)'));
  writeFileSync(join(dir, 'anim1.png'), png('rgb(0,0,255)'));
  const osb = `[Variables]
$sprite=Sprite,Foreground,TopLeft

[Events]
$sprite,"dot.png",0,0
 M,0,0,1000,100,100,300,100
 F,0,0,,1
 F,0,1500,2000,1,0
Animation,Foreground,TopLeft,"anim.png",0,300,2,100,LoopForever
 L,0,3
  F,0,0,100,1,1
`;
  const elements = parseStoryboardFile(osb);
  assert.equal(elements.length, 2);
  assert.equal(elements[0]!.file, 'dot.png');
  const player = await StoryboardPlayer.load(elements, dir);
  assert.equal(player.size, 2);
  // a 640x480 canvas: storyboard pixels map 1:1
  const canvas = createCanvas(640, 480);
  const ctx = canvas.getContext('2d');
  const at = (t: number, x: number, y: number): number[] => {
    ctx.fillStyle = 'black';
    ctx.fillRect(0, 0, 640, 480);
    player.draw(ctx, t, new Set(['Foreground']), 640, 480);
    return [...ctx.getImageData(x, y, 1, 1).data.slice(0, 3)];
  };
  assert.deepEqual(at(0, 105, 105), [255, 0, 0]);
  assert.deepEqual(at(500, 205, 105), [255, 0, 0]); // half way along the move
  assert.deepEqual(at(500, 105, 105), [0, 0, 0]);
  assert.deepEqual(at(1200, 305, 105), [255, 0, 0]); // stays at the end of the move
  assert.deepEqual(at(2500, 305, 105), [0, 0, 0]); // faded out, then gone
  assert.deepEqual(at(50, 5, 305), [0, 255, 0]); // animation frame 0
  assert.deepEqual(at(150, 5, 305), [0, 0, 255]); // frame 1
  assert.deepEqual(at(250, 5, 305), [0, 255, 0]); // loops over its frames
  assert.deepEqual(at(350, 5, 305), [0, 0, 0]); // the loop of 3 x 100 ms has ended
});

test('easing functions start at 0 and end at 1', () => {
  for (const e of [0, 1, 2, 3, 4, 5, 6, 7, 8, 15, 16, 17, 30]) {
    assert.ok(Math.abs(ease(e, 0)) < 1e-9, `easing ${e} at 0`);
    assert.ok(Math.abs(ease(e, 1) - 1) < 1e-9, `easing ${e} at 1`);
  }
});
