import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createCanvas, Image, type Canvas } from '@napi-rs/canvas';
import { buildSprites, frameAt } from '../../src/render/sprites.js';
import {
  emptySkin,
  loadSkin,
  overlayBeatmapSkin,
  parseSkinIni,
  type Skin,
} from '../../src/skin/load-skin.js';

function image(size: number, colour: string): Image {
  const c = createCanvas(size, size);
  const ctx = c.getContext('2d');
  ctx.fillStyle = colour;
  ctx.fillRect(0, 0, size, size);
  const img = new Image();
  img.src = c.toBuffer('image/png');
  return img;
}

function skinWith(ini: string, names: string[]): Skin {
  const skin = emptySkin();
  skin.ini = parseSkinIni(ini);
  for (const n of names) skin.images.set(n, { image: image(64, 'white'), scale: 1 });
  return skin;
}

const build = (skin: Skin, cursorSize?: number) =>
  buildSprites({
    skin,
    circleD: 100,
    screenH: 768,
    beatmapColours: [],
    sliderBorder: undefined,
    sliderTrack: undefined,
    cursorSize,
  });

describe('buildSprites: skin.ini choices', () => {
  test('HitCircleOverlayAboveNumber (default on): the overlay is kept apart, to go above the number', () => {
    const sp = build(skinWith('', ['hitcircle', 'hitcircleoverlay']));
    assert.ok(sp.circleOverlay, 'overlay drawn after the number');
    assert.equal(sp.sliderStartOverlay, sp.circleOverlay, 'slider heads use the circle');
    const below = build(
      skinWith('[General]\nHitCircleOverlayAboveNumber: 0', ['hitcircle', 'hitcircleoverlay']),
    );
    assert.equal(below.circleOverlay, undefined, 'overlay baked under the number');
    // the misspelling older skins use is read too
    assert.equal(
      parseSkinIni('[General]\nHitCircleOverlayAboveNumer: 0').hitCircleOverlayAboveNumber,
      false,
    );
  });

  test('a crafted huge skin image becomes a sprite of at most 4096 pixels a side', () => {
    const skin = emptySkin();
    skin.images.set('cursor', { image: image(64, 'white'), scale: 200 });
    const sp = build(skin);
    assert.ok(sp.cursor.width <= 4096 && sp.cursor.width > 1000, String(sp.cursor.width));
  });

  test('the key overlay from the skin: the key, tinted for keyboard and mouse presses', () => {
    assert.equal(build(emptySkin()).inputOverlay, undefined, 'our own keys without one');
    const sp = build(skinWith('', ['inputoverlay-key', 'inputoverlay-background']));
    assert.ok(sp.inputOverlay?.background);
    const centre = (c: Canvas): number[] => [
      ...c.getContext('2d').getImageData(c.width >> 1, c.height >> 1, 1, 1).data,
    ];
    assert.deepEqual(centre(sp.inputOverlay.key), [255, 255, 255, 255]);
    assert.deepEqual(centre(sp.inputOverlay.keyK).slice(0, 3), [255, 222, 0]);
    assert.deepEqual(centre(sp.inputOverlay.keyM).slice(0, 3), [248, 0, 158]);
  });

  test('cursor: rotate, expand and centre from skin.ini; cursor_size scales it', () => {
    const plain = build(skinWith('', ['cursor']));
    assert.deepEqual(
      [plain.cursorRotate, plain.cursorExpand, plain.cursorCentre],
      [true, true, true],
    );
    const off = build(
      skinWith('[General]\nCursorRotate: 0\nCursorExpand: 0\nCursorCentre: 0', ['cursor']),
    );
    assert.deepEqual([off.cursorRotate, off.cursorExpand, off.cursorCentre], [false, false, false]);
    const big = build(skinWith('', ['cursor']), 2);
    assert.equal(big.cursor.width, plain.cursor.width * 2);
    // our own round cursor never turns and is always centred
    const own = build(emptySkin());
    assert.deepEqual([own.cursorRotate, own.cursorCentre], [false, true]);
  });
});

function png(size: number, colour: string): Buffer {
  const c = createCanvas(size, size);
  const ctx = c.getContext('2d');
  ctx.fillStyle = colour;
  ctx.fillRect(0, 0, size, size);
  return c.toBuffer('image/png');
}

describe('skin animations and the beatmap skin', () => {
  const dir = mkdtempSync(join(tmpdir(), 'osu-skin-test-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('numbered frames become animations; the frame follows AnimationFramerate or one second', () => {
    const skin = skinWith('', [
      'hit100-0',
      'hit100-1',
      'hit100-2',
      'sliderb0',
      'sliderb1',
      'followpoint',
    ]);
    const sp = build(skin);
    const frames = sp.judgements.get(100)!;
    assert.equal(frames.length, 3);
    assert.equal(sp.sliderBall[0]!.length, 2);
    assert.equal(sp.followPoint?.length, 1);
    // no frame rate in skin.ini: the three frames over one second, then held
    assert.equal(frameAt(frames, 0, sp.animationFramerate, false), frames[0]);
    assert.equal(frameAt(frames, 400, sp.animationFramerate, false), frames[1]);
    assert.equal(frameAt(frames, 5000, sp.animationFramerate, false), frames[2]);
    assert.equal(frameAt(frames, 1000, 10, true), frames[1], '10 fps, looping: frame 10 of 3 is 1');
    assert.equal(parseSkinIni('[General]\nAnimationFramerate: 24').animationFramerate, 24);
    // a skin without the element: our own single frame
    assert.equal(build(emptySkin()).judgements.get(100)!.length, 1);
  });

  test("use_beatmap_skin: the beatmap folder's images replace the skin's, and only those", async () => {
    const skinDir = join(dir, 'skin');
    const mapDir = join(dir, 'map');
    mkdirSync(skinDir);
    mkdirSync(mapDir);
    writeFileSync(join(skinDir, 'hitcircle.png'), png(32, 'red'));
    writeFileSync(join(skinDir, 'cursor.png'), png(32, 'red'));
    writeFileSync(join(mapDir, 'hitcircle.png'), png(48, 'blue'));
    writeFileSync(join(mapDir, 'notes.txt'), 'not an image');
    const skin = await loadSkin(skinDir);
    assert.equal(await overlayBeatmapSkin(skin, mapDir), 1);
    assert.equal(skin.get('hitcircle')!.image.width, 48, "the map's hit circle");
    assert.equal(skin.get('cursor')!.image.width, 32, "the skin's cursor stays");
  });
});
