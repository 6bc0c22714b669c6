import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createCanvas, Image } from '@napi-rs/canvas';
import { buildSprites } from '../../src/render/sprites.js';
import { emptySkin, parseSkinIni, type Skin } from '../../src/skin/load-skin.js';

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
