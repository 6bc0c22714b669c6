// Loaded by `scripts/run-tests.mjs` into every test file's process (and into any process
// a test starts with the same flags; the child guard below only acts in test files).
//
// 1. Node 20's runner counts a file whose process exits 0 as passed, even when
//    `process.exit(0)` cut it short and its remaining tests never ran: such an exit is
//    turned into a failure.
// 2. A file that times out is ended by the runner with SIGTERM, and the services, engines
//    and browsers its tests started outlive it: the next files then run beside them on
//    the same 2 cores. Every child a test file starts is remembered until it exits, and
//    killed (with its process group when it was started detached) when the file's
//    process ends, however it ends.
import { ChildProcess } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { testSourcePath } from './test-source-path.mjs';

const exit = process.exit;
let calledWith;
process.exit = function guardedExit(code) {
  calledWith = code ?? process.exitCode ?? 0;
  return exit.call(process, code);
};
process.on('exit', (code) => {
  if (calledWith === undefined || code !== 0) return;
  process.stderr.write(
    `\nrun-tests: ${testSourcePath(process.argv[1])} called process.exit(0) while its tests ran; ` +
      'the tests after that point did NOT run.\n\n',
  );
  process.exitCode = 1;
});

const isTestFile = /\.test\.[cm]?[jt]s$/.test(process.argv[1] ?? '');
if (isTestFile) {
  /** Children still running: pid, and whether it leads its own process group. */
  const running = new Map();
  const spawn = ChildProcess.prototype.spawn;
  // Every asynchronous child (spawn, fork, exec, execFile, and libraries on top of them)
  // goes through this method.
  ChildProcess.prototype.spawn = function rememberedSpawn(options) {
    const result = spawn.call(this, options);
    const pid = this.pid;
    if (pid !== undefined) {
      running.set(pid, Boolean(options?.detached));
      this.once('exit', () => running.delete(pid));
    }
    return result;
  };
  const killLeftovers = () => {
    for (const [pid, leadsGroup] of running) {
      try {
        process.kill(leadsGroup ? -pid : pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  };
  process.on('exit', killLeftovers);
  // SIGTERM's default action skips 'exit' listeners, so the runner's SIGTERM is turned
  // into an exit with the status the default action would have given.
  process.once('SIGTERM', () => exit.call(process, 128 + 15));
}

// 3. TEST_CPU_FILE=f (scripts/run-tests.mjs passes an absolute path): each test file
//    appends the CPU seconds it used, with its children's that it waited for (utime,
//    stime, cutime, cstime of /proc/self/stat), so the suite's CPU can be kept down file
//    by file: on 2 cores the suite is CPU-bound, and wall times mostly show the neighbours.
if (isTestFile && process.env.TEST_CPU_FILE) {
  process.on('exit', () => {
    try {
      const stat = readFileSync('/proc/self/stat', 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // Fields 14–17 of proc(5), counted from the state (field 3) at index 0.
      const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
      appendFileSync(
        process.env.TEST_CPU_FILE,
        `${(ticks / 100).toFixed(1)}\t${testSourcePath(process.argv[1])}\n`,
      );
    } catch {
      // No /proc (not Linux): no figure.
    }
  });
}
