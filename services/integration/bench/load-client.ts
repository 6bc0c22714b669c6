/**
 * The integration bench's load generator: HTTP clients that submit intern records to the
 * submission service, one POST a record (`singles`, `paced`) or `records:batch` requests
 * (`batches`), reporting each accepted record with when its POST started and when its
 * answer came.
 *
 * The bench runs it on a worker thread of its own (`load-client-thread.ts`), as a separate
 * load generator would run beside a deployed platform, so the platform's event loop
 * carries the platform and not its clients: on the platform's loop the clients (requests
 * written, answers parsed, their sockets) were 12–15 % of that loop in the single-POST
 * phase (a `--cpu-prof`, 28 Nov 2026), and every record's answer waited behind them.
 * `BENCH_CLIENT=inline` runs it on that loop, as every figure before 28 Nov 2026 13:30 UTC
 * was taken. The render bench's clients run on their own thread for the same reason.
 */
import { Agent, request } from 'node:http';

/** An accepted record: its id, when its POST started and when its answer came (`clock`). */
export type AcceptedRecord = [recordId: string, startedAt: number, answeredAt: number];

/**
 * Milliseconds on a clock that every thread of the process reads alike: a worker's
 * `performance.now()` counts from the worker's own start.
 */
export const clock = (): number => performance.timeOrigin + performance.now();

export type LoadCommand =
  /** `count` single POSTs from `concurrency` clients, each as soon as its last was answered. */
  | { kind: 'singles'; count: number; concurrency: number }
  /** `count` records in `records:batch` requests of `size`, `concurrency` at once. */
  | { kind: 'batches'; count: number; size: number; concurrency: number }
  /** `count` single POSTs started at a steady `rate` a second, whatever the answers' pace. */
  | { kind: 'paced'; count: number; rate: number };

export interface LoadClientOptions {
  /** The submission service's base URL. */
  submissionUrl: string;
  /** Makes this run's natural keys its own (`B-<run>-<n>`). */
  run: string;
  maxSockets: number;
}

export interface LoadClient {
  /** Runs one command; `report` gets the accepted records as they are answered. */
  run(command: LoadCommand, report: (accepted: AcceptedRecord[]) => void): Promise<void>;
  close(): void;
}

export function createLoadClient(options: LoadClientOptions): LoadClient {
  // node:http with kept-alive sockets: with fetch (undici, web streams) the clients were
  // about a tenth of the single-POST phase's CPU when they ran on the platform's loop.
  const agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets });
  let serial = 0;
  const intern = () => {
    const i = serial++;
    return {
      internId: `B-${options.run}-${i}`,
      firstName: 'Bench',
      lastName: `Mark ${i}`,
      email: `bench${i}@example.org`,
      college: 'Load College, Testshire',
      department: 'Performance',
      startDate: '2025-01-01',
    };
  };
  const post = (path: string, body: unknown) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const text = JSON.stringify(body);
      const req = request(`${options.submissionUrl}${path}`, {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
      });
      req.on('error', reject);
      req.on('response', (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      });
      req.end(text);
    });

  async function single(report: (accepted: AcceptedRecord[]) => void): Promise<void> {
    const startedAt = clock();
    const response = await post('/contracts/interns/records', intern());
    if (response.status !== 202)
      throw new Error(`submission answered ${response.status}: ${response.body}`);
    const { recordId } = JSON.parse(response.body) as { recordId: string };
    report([[recordId, startedAt, clock()]]);
  }

  async function batch(size: number, report: (accepted: AcceptedRecord[]) => void) {
    const startedAt = clock();
    const response = await post('/contracts/interns/records:batch', {
      records: Array.from({ length: size }, intern),
    });
    const answeredAt = clock();
    if (response.status !== 200)
      throw new Error(`batch submission answered ${response.status}: ${response.body}`);
    const { results } = JSON.parse(response.body) as {
      results: Array<{ status: number; recordId: string; detail?: string }>;
    };
    const accepted: AcceptedRecord[] = [];
    for (const result of results) {
      if (result.status !== 202)
        throw new Error(`a batched record answered ${result.status}: ${result.detail}`);
      accepted.push([result.recordId, startedAt, answeredAt]);
    }
    report(accepted);
  }

  return {
    async run(command, report) {
      let left = command.count;
      if (command.kind === 'singles' || command.kind === 'batches') {
        const size = command.kind === 'batches' ? command.size : 1;
        await Promise.all(
          Array.from({ length: command.concurrency }, async () => {
            while (left > 0) {
              const take = Math.min(size, left);
              left -= take;
              await (command.kind === 'batches' ? batch(take, report) : single(report));
            }
          }),
        );
        return;
      }
      const started = clock();
      const inFlight: Promise<void>[] = [];
      for (let i = 0; i < command.count; i += 1) {
        // Waits only while ahead of the schedule: a timer is at least 1 ms, so waiting on
        // one for every record held the rate under 1,000/s (747/s submitted).
        const wait = started + (i * 1000) / command.rate - clock();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        inFlight.push(single(report));
      }
      await Promise.all(inFlight);
    },
    close() {
      agent.destroy();
    },
  };
}
