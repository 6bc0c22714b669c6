/**
 * A service process that a fault harness kills and starts again (issue 21, `npm run
 * chaos`). Its ports are stable free ports; when one of them was taken while the
 * service was down (the restart exits with EADDRINUSE, or the port is seen taken before
 * it), the service moves to a fresh free port instead of being started on the taken one
 * for ever, and that exit is a relocation, not a crash of the service. The harness reads
 * `ports` (or `url()`) at each request, so its load follows the move.
 */
import type { ChildProcess } from 'node:child_process';
import { freePort, portFree } from './free-port.js';

export interface RestartableServiceOptions {
  /** For the log lines. */
  name: string;
  /** The env variables that carry this process's listening ports (`PORT`, …). */
  portNames: readonly string[];
  /** Starts the process with these ports (the caller adds them to its env). */
  spawn: (ports: Readonly<Record<string, number>>) => ChildProcess;
  log?: (line: string) => void;
}

/** The end of a child's output kept to tell an EADDRINUSE exit from a crash. */
const TAIL_CHARS = 4096;

export class RestartableService {
  /** The current port of each name; replaced (not mutated) when the service moves. */
  ports: Readonly<Record<string, number>>;
  child: ChildProcess | undefined;
  /** Exits nobody asked for other than a taken port: a failure of the service. */
  crashes = 0;
  /** Restarts that moved to a fresh port because one was taken. */
  relocations = 0;
  private stopping = false;

  private constructor(
    private readonly options: RestartableServiceOptions,
    ports: Record<string, number>,
  ) {
    this.ports = ports;
  }

  static async create(options: RestartableServiceOptions): Promise<RestartableService> {
    const ports: Record<string, number> = {};
    for (const name of options.portNames) ports[name] = await freePort();
    return new RestartableService(options, ports);
  }

  /** `http://127.0.0.1:<port>` of the port named `name` (the first one by default). */
  url(name = this.options.portNames[0]!): string {
    return `http://127.0.0.1:${this.ports[name]}`;
  }

  /** Starts the process, first moving off any port that is taken now. */
  async start(): Promise<ChildProcess> {
    await this.moveOffTaken(false);
    return this.spawnChild();
  }

  /** kill -9 (of the whole group with `group`, for a process started detached). */
  async kill(group = false): Promise<void> {
    const running = this.child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    try {
      if (group) process.kill(-running.pid!, 'SIGKILL');
      else running.kill('SIGKILL');
    } catch {
      // exited meanwhile
    }
    await exited;
  }

  /** No restart after this (the run is ending). */
  stop(): void {
    this.stopping = true;
  }

  private spawnChild(): ChildProcess {
    const child = this.options.spawn(this.ports);
    this.child = child;
    let tail = '';
    const keep = (chunk: Buffer) => (tail = (tail + chunk.toString()).slice(-TAIL_CHARS));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.once('exit', (code, signal) => {
      if (signal === 'SIGKILL' || this.stopping || this.child !== child) return;
      void (async () => {
        const moved = await this.moveOffTaken(tail.includes('EADDRINUSE'));
        if (moved) this.relocations += 1;
        else {
          this.crashes += 1;
          this.options.log?.(
            `${this.options.name} exited by itself (code ${code}); starting it again`,
          );
        }
        if (!this.stopping && this.child === child) this.spawnChild();
      })();
    });
    return child;
  }

  /**
   * Moves each taken port (all of them with `addressInUse`: the output said one was
   * taken and the holder may have let it go since) to a fresh one; true if any moved.
   */
  private async moveOffTaken(addressInUse: boolean): Promise<boolean> {
    const next = { ...this.ports };
    let moved = false;
    for (const name of this.options.portNames) {
      if (!addressInUse && (await portFree(next[name]!))) continue;
      const port = await freePort();
      this.options.log?.(
        `${this.options.name}: ${name} ${next[name]} → ${port} (${addressInUse ? 'EADDRINUSE' : 'taken'})`,
      );
      next[name] = port;
      moved = true;
    }
    this.ports = next;
    return moved;
  }
}
