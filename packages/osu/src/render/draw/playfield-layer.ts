/** What every layer drawn in playfield coordinates shares: the scene, the playfield's place, the judgement timeline. */
import type { Scene } from '../frame-drawer.js';
import type { JudgementTimeline } from './judgement-timeline.js';
import type { PlayfieldView } from './playfield-view.js';

export abstract class PlayfieldLayer {
  /** Screen pixels per osu! pixel, and the screen position of the playfield's origin. */
  protected readonly s: number;
  protected readonly ox: number;
  protected readonly oy: number;
  /** Scratch point for position lookups (no allocation per frame). */
  protected readonly pos2 = { x: 0, y: 0 };

  constructor(
    protected readonly scene: Scene,
    view: PlayfieldView,
    protected readonly timeline: JudgementTimeline,
  ) {
    this.s = view.scale;
    this.ox = view.x;
    this.oy = view.y;
  }
}
