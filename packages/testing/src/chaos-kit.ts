/**
 * Small parts the seeded fault harnesses share (issue 21, `npm run chaos`): fault kinds
 * drawn from a seeded generator (core's `seededRandom`: a run repeats for its seed), waits
 * bounded by a deadline or by progress (a loaded machine is slower, not stuck), and a
 * quantile of recovery times.
 */
import assert from 'node:assert/strict';

/**
 * Draws fault kinds in rounds, each round a seeded shuffle of `kinds`: every kind comes
 * once in any `kinds.length` faults in a row. A short run (`npm test`) then covers every
 * kind with as many faults as there are kinds, where independent draws need about three
 * times as many to miss none; the long runs keep independent draws (`pick`), so their
 * recorded seeds still repeat.
 */
export function kindsInRounds<T>(kinds: readonly T[], random: () => number): () => T {
  let round: T[] = [];
  return () => {
    if (round.length === 0) {
      round = [...kinds];
      // Fisher–Yates, from the seeded stream.
      for (let i = round.length - 1; i > 0; i -= 1) {
        const j = Math.floor(random() * (i + 1));
        [round[i], round[j]] = [round[j]!, round[i]!];
      }
    }
    return round.pop()!;
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `check` holds (a throwing check counts as not yet); throws after `timeoutMs`. */
export async function until(
  what: string,
  timeoutMs: number,
  check: () => boolean | Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (
      await Promise.resolve()
        .then(check)
        .catch(() => false)
    )
      return;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * Waits until `remaining` reaches 0; false once it has not gone down for `quietMs`
 * (progress, not wall-clock, decides).
 */
export async function untilSettled(quietMs: number, remaining: () => Promise<number>) {
  let best = Number.POSITIVE_INFINITY;
  let movedAt = Date.now();
  for (;;) {
    const left = await remaining().catch(() => best);
    if (left === 0) return true;
    if (left < best) {
      best = left;
      movedAt = Date.now();
    } else if (Date.now() - movedAt > quietMs) return false;
    await sleep(250);
  }
}

/** The q-quantile (0–1) of `values` (nearest rank); undefined when empty. */
export function quantile(values: readonly number[], q: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

/**
 * The next fault kind of a run: with `inRounds` (`--every-kind`) from `kindsInRounds`,
 * else an independent draw (one number from `random` each, as the long runs' recorded
 * seeds expect).
 */
export function kindDrawer<T>(
  kinds: readonly T[],
  random: () => number,
  inRounds: boolean,
): () => T {
  return inRounds
    ? kindsInRounds(kinds, random)
    : () => kinds[Math.floor(random() * kinds.length)]!;
}

/**
 * Holds that a chaos run drew every kind it was given (`--every-kind` short runs): the
 * harness names its kinds in its first line (`… faults of a, b, c; …`, the disk kinds left
 * out without their tools) and its table has a row per kind drawn (`| kind | …`, or
 * `| kind after step …` for analytics).
 */
export function assertEveryKindDrawn(output: string): void {
  const named = /faults of ([^;\n]+);/.exec(output);
  assert.ok(named, 'the run does not name its fault kinds');
  for (const kind of named[1]!.split(', '))
    assert.match(
      output,
      new RegExp(`^\\| ${kind.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} (\\||after step)`, 'm'),
      `no ${kind} fault drawn`,
    );
}

/**
 * Runs a chaos harness (`chaos/chaos.ts` of the service in `cwd`) as a child process for
 * a node:test test: a cancelled test stops it (which stops its engines); the output from
 * the table's heading on is printed. Resolves with the exit code and the whole output.
 */
export async function runChaosHarness(
  signal: AbortSignal,
  cwd: string,
  args: string[],
  heading: string,
): Promise<{ code: number | null; output: string }> {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, ['--import', 'tsx', 'chaos/chaos.ts', ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  signal.addEventListener('abort', () => child.kill('SIGTERM'));
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  process.stdout.write(output.slice(output.indexOf(`\n${heading}`)));
  return { code, output };
}
