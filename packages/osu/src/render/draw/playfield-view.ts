/** Where the 512x384 osu! playfield sits on the screen. */

export interface PlayfieldView {
  /** Screen pixels per osu! pixel. */
  scale: number;
  /** Screen position of the playfield's (0, 0). */
  x: number;
  y: number;
}

/** Where the 512x384 playfield sits on a width x height screen: screen = origin + osu * scale. */
export function playfieldTransform(width: number, height: number): PlayfieldView {
  const scale = (height * 0.8) / 384;
  return { scale, x: (width - 512 * scale) / 2, y: (height - 384 * scale) / 2 + height * 0.02 };
}
