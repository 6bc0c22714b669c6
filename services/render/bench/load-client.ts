/**
 * The render API benchmark's load generator, run on a worker thread so the clients do
 * not share the server's event loop (as wrk or autocannon would run in their own
 * process): the server has one core, the clients the other. Each phase is one message
 * in, one result out.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

export interface LoadClientData {
  port: number;
  /** The multipart body of one submission, and its boundary. */
  body: Uint8Array;
  boundary: string;
  concurrency: number;
}

export type Phase =
  | { kind: 'closed'; submissions: number }
  | { kind: 'paced'; rate: number; seconds: number }
  | { kind: 'reads'; ids: string[]; seconds: number };

export interface PhaseResult {
  seconds: number;
  /** Latencies in ms, sorted (closed: from send; paced: from the scheduled start). */
  latencies: number[];
  statuses: Array<[number, number]>;
  jobIds: string[];
  reads: number;
  errors: number;
  /** CPU time this client thread used in the phase (ms), or undefined off Linux. */
  clientCpuMs?: number | undefined;
}

/**
 * This thread's own CPU time (user + system, ms) from /proc/thread-self/stat, so the bench
 * can subtract the clients' share from the process's (process.cpuUsage counts every
 * thread). Undefined where /proc is missing.
 */
export function threadCpuMs(): number | undefined {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'utf8');
    // Fields after the command name (which may contain spaces); utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticksPerSecond = 100; // USER_HZ, 100 on every Linux ABI Node supports
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
  } catch {
    return undefined;
  }
}

const { port, body: rawBody, boundary, concurrency } = workerData as LoadClientData;
const body = Buffer.from(rawBody);
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
const submitHeaders = (address: string) => ({
  'content-type': `multipart/form-data; boundary=${boundary}`,
  'content-length': String(body.length),
  'edge-connecting-ip': address,
});

function call(
  method: string,
  path: string,
  headers: Record<string, string>,
  payload?: Buffer,
  via: Agent = agent,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent: via, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
      );
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** `submissions` from `concurrency` clients, each from its own 10.0.0.0/8 address. */
async function closed(submissions: number): Promise<PhaseResult> {
  const result = emptyResult();
  const statuses = new Map<number, number>();
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const n = next++;
        if (n >= submissions) return;
        const address = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
        const t = performance.now();
        const res = await call('POST', '/v1/render', submitHeaders(address), body);
        result.latencies.push(performance.now() - t);
        count(statuses, res.status);
        if (res.status === 202) result.jobIds.push(JSON.parse(res.body).job_id);
      }
    }),
  );
  return finish(result, statuses, started);
}

/**
 * Open loop: requests start on schedule whatever the earlier ones are doing, so a stall
 * counts for every request it delays; each from an address of 172.16.0.0/12.
 */
async function paced(rate: number, seconds: number): Promise<PhaseResult> {
  const result = emptyResult();
  const statuses = new Map<number, number>();
  const pacedAgent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const total = Math.round(rate * seconds);
  const start = performance.now() + 50;
  const calls: Promise<void>[] = [];
  for (let n = 0; n < total; n += 1) {
    const due = start + (n * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const address = `172.${16 + ((n >> 16) & 15)}.${(n >> 8) & 255}.${n & 255}`;
    calls.push(
      call('POST', '/v1/render', submitHeaders(address), body, pacedAgent).then(
        (res) => {
          result.latencies.push(performance.now() - due);
          count(statuses, res.status);
          if (res.status === 202) result.jobIds.push(JSON.parse(res.body).job_id);
        },
        () => count(statuses, 0),
      ),
    );
  }
  await Promise.all(calls);
  pacedAgent.destroy();
  return finish(result, statuses, start);
}

/** `concurrency` clients reading `ids` round-robin for `seconds`. */
async function reads(ids: string[], seconds: number): Promise<PhaseResult> {
  const result = emptyResult();
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, i) => {
      while (performance.now() < until) {
        const id = ids[(result.reads + i) % ids.length]!;
        const res = await call('GET', `/v1/jobs/${id}`, {});
        if (res.status === 200) result.reads += 1;
        else result.errors += 1;
      }
    }),
  );
  return finish(result, new Map(), started);
}

function emptyResult(): PhaseResult {
  return { seconds: 0, latencies: [], statuses: [], jobIds: [], reads: 0, errors: 0 };
}

function count(statuses: Map<number, number>, status: number): void {
  statuses.set(status, (statuses.get(status) ?? 0) + 1);
}

function finish(result: PhaseResult, statuses: Map<number, number>, started: number) {
  result.seconds = (performance.now() - started) / 1000;
  result.latencies.sort((a, b) => a - b);
  result.statuses = [...statuses];
  return result;
}

parentPort!.on('message', async (phase: Phase | 'close') => {
  if (phase === 'close') {
    agent.destroy();
    parentPort!.close();
    return;
  }
  const cpuBefore = threadCpuMs();
  const result =
    phase.kind === 'closed'
      ? await closed(phase.submissions)
      : phase.kind === 'paced'
        ? await paced(phase.rate, phase.seconds)
        : await reads(phase.ids, phase.seconds);
  const cpuAfter = threadCpuMs();
  if (cpuBefore !== undefined && cpuAfter !== undefined) result.clientCpuMs = cpuAfter - cpuBefore;
  parentPort!.postMessage(result);
});
