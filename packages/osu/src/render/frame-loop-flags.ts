/**
 * The V8 flags of a process that draws frames. V8 reads them at start only (switching
 * them at run time crashed V8, README Decisions), so they are start flags:
 * `--expose-gc` gives the young collection that frees read-back frames
 * (release-frames.ts) and `--no-incremental-marking` keeps marking out of the frame loop
 * (node's CPU a frame +50% at 1080p with it on, README Benchmarks). The render service's
 * start script and `bench:render` start node with them; the render-replay CLI starts
 * itself again with them when the node that runs it lacks them.
 */
export const frameLoopNodeFlags: readonly string[] = ['--expose-gc', '--no-incremental-marking'];

/** The frame-loop flags that `execArgv` (a process's start flags) lacks. */
export function missingFrameLoopFlags(execArgv: readonly string[] = process.execArgv): string[] {
  return frameLoopNodeFlags.filter((flag) => !execArgv.includes(flag));
}
