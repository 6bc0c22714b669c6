/**
 * Where the node thread's time goes while a render draws its frames: wall-clock
 * milliseconds summed per stage (draw, readback, conversion, waiting for ffmpeg...),
 * taken as laps so the stages add up to the loop's time, and the process's CPU over
 * the same span. The render log ends with its summary and `bench:render` prints it;
 * four `performance.now()` calls a frame cost nothing next to a frame.
 */
export class StageProfile {
  private readonly totals = new Map<string, number>();
  private last = performance.now();
  private readonly wall0 = this.last;
  private readonly cpu0 = process.cpuUsage();

  /** Ends the stage running since the last lap, counting its time under `stage`. */
  lap(stage: string): void {
    const now = performance.now();
    this.totals.set(stage, (this.totals.get(stage) ?? 0) + now - this.last);
    this.last = now;
  }

  /** Milliseconds a frame in each stage, in the order the stages first ran. */
  perFrame(frames: number): Record<string, number> {
    const n = Math.max(1, frames);
    return Object.fromEntries([...this.totals].map(([k, v]) => [k, v / n]));
  }

  /** One line: each stage's wall ms a frame, the loop's, and the process's CPU a frame. */
  summary(frames: number): string {
    const n = Math.max(1, frames);
    const cpu = process.cpuUsage(this.cpu0);
    const stages = Object.entries(this.perFrame(frames))
      .map(([k, v]) => `${k} ${v.toFixed(2)}`)
      .join(', ');
    return (
      `stages (wall ms a frame, ${frames} frames): ${stages}; loop ${((performance.now() - this.wall0) / n).toFixed(2)}; ` +
      `node process CPU ${(cpu.user / 1000 / n).toFixed(2)} user + ${(cpu.system / 1000 / n).toFixed(2)} system ms a frame (all its threads: GC, ffmpeg pipe I/O)`
    );
  }
}
