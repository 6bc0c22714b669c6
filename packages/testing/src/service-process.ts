/**
 * A service's entry point as a process for one test (issue 21's start-up tests): bundled
 * (`bundled-entry.ts`: a start under tsx costs about a second more CPU) and spawned on the
 * embedded defaults plus the env given, on 127.0.0.1, logging at warn,
 * with a throw-away DATA_DIR; its output is kept (pino's lines on stdout, Node's last
 * words on stderr). The test's end stops it, waits until it closed, and removes DATA_DIR.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleEntry, packageDirOf } from './bundled-entry.js';
import { embeddedDefaultsEnv, skipReason } from './engines.js';
import { postgresUrlForTests } from './postgres.js';
import { waitFor } from './wait-for.js';

export interface ServiceProcess {
  child: ChildProcess;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /** Its exit code, once it closed ('close', not 'exit': its last words are in by then). */
  closed: Promise<number | null>;
  /** Throws, with the end of its output, when it has exited. */
  assertRunning(): void;
  /** Waits until its output matches `pattern`; throws at once if it exits first. */
  waitForOutput(what: string, pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Waits until `GET <base>/health` answers 200 for every base; throws if it exits first. */
  waitForHealth(bases: readonly string[], timeoutMs?: number): Promise<void>;
}

export async function spawnServiceMain(
  t: { after(fn: () => unknown): void },
  main: string,
  env: Record<string, string>,
): Promise<ServiceProcess> {
  const packageDir = packageDirOf(main);
  if (!packageDir) throw new Error(`${main} is in no package`);
  const bundle = await bundleEntry(packageDir, main);
  const dataDir = mkdtempSync(join(tmpdir(), 'service-main-'));
  const child = spawn(process.execPath, [bundle], {
    env: {
      ...embeddedDefaultsEnv(),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const closed = new Promise<number | null>((resolve) =>
    child.once('close', (code) => resolve(code)),
  );
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await closed;
    rmSync(dataDir, { recursive: true, force: true });
  });
  const assertRunning = () => {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(
        `${main} exited (${child.exitCode ?? child.signalCode}): ${output.slice(-3000)}`,
      );
  };
  const healthy = (base: string) =>
    fetch(`${base}/health`).then(
      (response) => response.ok,
      () => false,
    );
  return {
    child,
    output: () => output,
    closed,
    assertRunning,
    waitForOutput: (what, pattern, timeoutMs = 90_000) =>
      waitFor(
        what,
        () => {
          assertRunning();
          return pattern.test(output);
        },
        timeoutMs,
      ),
    waitForHealth: (bases, timeoutMs = 90_000) =>
      waitFor(
        `/health to answer 200 at ${bases.join(', ')}`,
        async () => {
          assertRunning();
          for (const base of bases) if (!(await healthy(base))) return false;
          return true;
        },
        timeoutMs,
      ),
  };
}

/** The PostgreSQL of a start-up test and its `{ skip }` (loud when there is none). */
export async function startupTestPostgres(): Promise<{ url?: string; skip?: string }> {
  const url = await postgresUrlForTests();
  return { url, skip: skipReason('PostgreSQL', url !== undefined) };
}

/** The warn line of a start that waits for its database (core's waitForDependency). */
export const WAITS_FOR_DATABASE = /"level":40,[^\n]*"msg":"start-up waits for the database/;

/**
 * A start on a database that does not exist (`missingDatabaseUrl`) is a configuration
 * error: the process exits 1 at once, with `failedToStart` and the database's name, and
 * never says it waits.
 */
export async function assertExitsOnMissingDatabase(
  service: ServiceProcess,
  failedToStart: RegExp,
): Promise<void> {
  assert.equal(await service.closed, 1, service.output().slice(-3000));
  assert.match(service.output(), failedToStart);
  assert.match(service.output(), /database \\?"startup_retry_missing_\w+\\?" does not exist/);
  assert.doesNotMatch(service.output(), /start-up waits for/);
}
