/**
 * The assignment part of a consumer's partition state, shared by both drivers' consumers. Kept
 * apart from broker.ts, which re-exports the factory (and through it every driver): a
 * driver importing it from there made an import cycle.
 */
import type { Assignment } from './broker.js';

/** The assignment part of a consumer's own partition state (a copy, without its other fields). */
export const assignmentOf = ({
  topic,
  partition,
  committedOffset,
  endOffset,
}: Assignment): Assignment => ({
  topic,
  partition,
  committedOffset,
  endOffset,
});
