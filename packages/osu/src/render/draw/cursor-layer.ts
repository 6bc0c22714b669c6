/** The cursor with its trail, and the flashlight mask that follows it. */
import type { SKRSContext2D } from '@napi-rs/canvas';
import { drawCentred } from './draw-centred.js';
import { PlayfieldLayer } from './playfield-layer.js';

/** How much a skin's cursor grows while a key is down (CursorExpand), as in stable. */
const CURSOR_EXPAND = 1.3;
/** One turn of a rotating cursor (CursorRotate), real-time ms. */
const CURSOR_TURN_MS = 10000;

export class CursorLayer extends PlayfieldLayer {
  /** Flashlight: the stage's mask around the cursor (smaller at 100 and 200 combo), black elsewhere. */
  drawFlashlight(ctx: SKRSContext2D, t: number, cx: number, cy: number): void {
    const masks = this.scene.flashlight!;
    const combo = this.timeline.stateAt(t).combo;
    const mask = masks[combo >= 200 ? 2 : combo >= 100 ? 1 : 0]!;
    const { width: W, height: H } = this.scene;
    const x = Math.round(cx - mask.width / 2);
    const y = Math.round(cy - mask.height / 2);
    ctx.drawImage(mask, x, y);
    ctx.fillStyle = 'black';
    const right = x + mask.width;
    const bottom = y + mask.height;
    if (y > 0) ctx.fillRect(0, 0, W, y);
    if (bottom < H) ctx.fillRect(0, bottom, W, H - bottom);
    if (x > 0) ctx.fillRect(0, Math.max(0, y), x, Math.min(H, bottom) - Math.max(0, y));
    if (right < W)
      ctx.fillRect(right, Math.max(0, y), W - right, Math.min(H, bottom) - Math.max(0, y));
  }

  /** The cursor where the replay puts it, larger while a key is down, with its trail. */
  drawCursor(ctx: SKRSContext2D, t: number, cx: number, cy: number): void {
    const sp = this.scene.sprites;
    const speed = this.scene.play.speed;
    const trail = sp.cursorTrail;
    for (let k = 8; k >= 1; k--) {
      const p = this.scene.cursor.positionAt(t - k * 6 * speed, this.pos2);
      ctx.globalAlpha = 0.5 * (1 - k / 9);
      drawCentred(ctx, trail, this.ox + p.x * this.s, this.oy + p.y * this.s);
    }
    ctx.globalAlpha = 1;
    const pressed = (this.scene.cursor.keysAt(t) & 15) !== 0;
    const grow = pressed && sp.cursorExpand ? CURSOR_EXPAND : 1;
    const img = sp.cursor;
    if (sp.cursorRotate) {
      // real time: the turn does not speed up under DT
      const angle = ((t / speed) % CURSOR_TURN_MS) * ((2 * Math.PI) / CURSOR_TURN_MS);
      ctx.save();
      ctx.translate(cx, cy);
      ctx.rotate(angle);
      if (sp.cursorCentre) drawCentred(ctx, img, 0, 0, grow);
      else ctx.drawImage(img, 0, 0, img.width * grow, img.height * grow);
      ctx.restore();
    } else if (sp.cursorCentre) drawCentred(ctx, img, cx, cy, grow);
    else ctx.drawImage(img, cx, cy, img.width * grow, img.height * grow);
    // cursormiddle neither turns nor grows
    if (sp.cursorMiddle) drawCentred(ctx, sp.cursorMiddle, cx, cy);
  }
}
