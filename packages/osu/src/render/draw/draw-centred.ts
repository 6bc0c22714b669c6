/** The blit every layer uses: an image centred on a point, at its size or scaled. */
import type { Canvas, SKRSContext2D } from '@napi-rs/canvas';

/** Draws `img` centred on (x, y): at its own size, or scaled by `k`. */
export function drawCentred(
  ctx: SKRSContext2D,
  img: Canvas,
  x: number,
  y: number,
  k?: number,
): void {
  if (k === undefined) ctx.drawImage(img, x - img.width / 2, y - img.height / 2);
  else {
    const w = img.width * k;
    const h = img.height * k;
    ctx.drawImage(img, x - w / 2, y - h / 2, w, h);
  }
}
