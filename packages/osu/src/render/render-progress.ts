/**
 * Progress of the frame loop: the caller hears each new whole percent (at most 99 until
 * the render is done, so 100 means finished), the log a line with the drawing rate every
 * 10 %.
 */
export function progressReporter(
  frames: number,
  onProgress: ((percent: number) => void) | undefined,
  log: (line: string) => void,
): (framesDrawn: number) => void {
  let lastPercent = -1;
  const drawStart = performance.now();
  return (i) => {
    const p = Math.floor((i / frames) * 100);
    if (p === lastPercent) return;
    lastPercent = p;
    onProgress?.(Math.min(99, p));
    if (p % 10 === 0 && p > 0 && p < 100) {
      const secs = (performance.now() - drawStart) / 1000;
      log(`drawn ${p}%: ${i}/${frames} frames, ${(i / secs).toFixed(1)} fps`);
    }
  };
}
