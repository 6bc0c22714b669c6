import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createCanvas } from '@napi-rs/canvas';
import { madeOsuFixture } from '@platform/testing';
import { FrameDrawer, playfieldTransform } from '../../src/render/frame-drawer.js';
import { prepareScene } from '../../src/render/prepare-scene.js';
import { resolveOptions } from '../../src/render/render-options.js';
import { decodeReplay } from '../../src/replay/decode-replay.js';
import { Mods } from '../../src/replay/mods.js';
import { madeFixture } from '../helpers.js';

const W = 320;
const H = 180;

describe('flashlight', () => {
  test('black away from the cursor, the play visible around it, the hole smaller from 100 combo', async () => {
    const replay = decodeReplay(madeFixture('perfect.osr'));
    replay.mods |= Mods.Flashlight;
    const { draw } = resolveOptions({
      ...resolveOptions({} as never),
      bgDim: 0,
      width: W,
      height: H,
    });
    const p = await prepareScene({
      replay,
      beatmapPath: madeOsuFixture('made.osu'),
      skinDir: undefined,
      width: W,
      height: H,
      fps: 30,
      storyboard: false,
      draw: {
        ...draw,
        hpBar: false,
        unstableRate: false,
        hitErrorMeter: false,
        keyOverlay: false,
        ppCounter: false,
      },
      log: () => undefined,
    });
    const masks = p.scene.flashlight!;
    assert.equal(masks.length, 3);
    assert.ok(masks[2]!.width < masks[1]!.width && masks[1]!.width < masks[0]!.width);
    // the hole: transparent in the middle of a mask, black in its corners
    const pixel = (c: (typeof masks)[number], x: number, y: number): number[] => [
      ...c.getContext('2d').getImageData(x, y, 1, 1).data,
    ];
    assert.equal(pixel(masks[0]!, masks[0]!.width >> 1, masks[0]!.height >> 1)[3], 0);
    assert.deepEqual(pixel(masks[0]!, 0, 0), [0, 0, 0, 255]);

    // a frame: the screen corner far from the cursor is black
    const canvas = createCanvas(W, H);
    const ctx = canvas.getContext('2d');
    const t = p.scene.play.objects[1]!.time;
    new FrameDrawer(p.scene).draw(ctx, t);
    const cur = p.scene.cursor.positionAt(t, { x: 0, y: 0 });
    const view = playfieldTransform(W, H);
    const cx = view.x + cur.x * view.scale;
    const cy = view.y + cur.y * view.scale;
    // a playfield point beyond the mask's reach (the HUD is drawn over the flashlight, as in the game)
    const px = Math.round(view.x + 5);
    const py = Math.round(view.y + 200 * view.scale);
    assert.ok(
      Math.hypot(px - cx, py - cy) > masks[0]!.width / 2 + 2,
      'the point is outside the mask',
    );
    assert.deepEqual([...ctx.getImageData(px, py, 1, 1).data].slice(0, 3), [0, 0, 0]);
  });
});
