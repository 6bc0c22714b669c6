/**
 * The benchmark's HTTP client, run in its own process so that the latency measured is
 * the server's as a client sees it, not shared with the client's own work on one event
 * loop. Sends BENCH_WARMUP untimed requests, prints `warmed` and waits for a line on
 * stdin (the bench starts counting the server's CPU and times then), sends `requests`
 * timed requests at `concurrency` and prints one JSON line: the latencies (ms), the
 * line's seconds, and the client's own costs during the timed requests (CPU, collections). GETs of `url`, or, given a tool
 * name, MCP `tools/call` POSTs of that tool to `url` (the stateless Streamable HTTP
 * endpoint, as a client that initialized once would send them).
 *   node --expose-gc bench/load-client.ts URL REQUESTS CONCURRENCY [TOOL ARGUMENTS_JSON]
 *
 * What a sample is: from the write of the request's bytes to its keep-alive socket (one
 * per concurrent request, opened before the warm-up) to the arrival of the answer's last
 * byte, as wrk measures (`raw-http.ts`). It includes the kernel's loopback, the server's
 * wait for its core and its work, and this process's wait for its own core; it leaves out
 * building the request and checking the answer, done outside the span.
 *
 * Earlier clients and why not (README, Benchmark): `fetch` cost 0.6–0.8 ms of CPU per
 * request, `node:http` 0.3–0.5 ms (27 Nov, loaded), as much as the server's cached read,
 * on the same two cores: four answers arriving together waited in the client for each
 * other's parsing, and its scavenges (1–3 per 1,000 requests, 5–40 ms each at load) held
 * every answer in flight. This client allocates little, collects fully before its timed
 * requests (`--expose-gc`; the bench gives it a young generation that does not shrink)
 * and reports any collection during them, so a line says whether the client paused.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { RawHttpConnection, type RawAnswer } from './raw-http.js';

const [url, requestsArg, concurrencyArg, tool, argumentsArg] = process.argv.slice(2);
if (!url) {
  process.stderr.write('usage: load-client URL REQUESTS CONCURRENCY [TOOL ARGUMENTS_JSON]\n');
  process.exit(2);
}
const requests = Number(requestsArg ?? 200);
const concurrency = Number(concurrencyArg ?? 4);
const toolArguments: unknown = JSON.parse(argumentsArg ?? '{}');
const target = new URL(url);
const host = `${target.hostname}:${target.port}`;
const path = `${target.pathname}${target.search}`;

const getBytes = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\n\r\n`, 'latin1');

/** JSON-RPC ids have this many digits, so a request's bytes keep their length. */
const ID_DIGITS = 10;
const FIRST_ID = 10 ** (ID_DIGITS - 1);

/**
 * A `tools/call` POST of one connection, whose id's digits are rewritten in place for each
 * request, and the start its answer must have: a request allocates nothing (a new body
 * per call scavenged the client about once per 1,000 MCP calls, 28 Nov).
 */
class ToolCall {
  readonly bytes: Buffer;
  /** `{"jsonrpc":"2.0","id":ID,`: the answer's bytes before its result. */
  readonly prefix: Buffer;
  private readonly idAt: number;
  private readonly prefixIdAt: number;

  constructor() {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: FIRST_ID,
      method: 'tools/call',
      params: { name: tool, arguments: toolArguments },
    });
    this.bytes = Buffer.from(
      `POST ${path} HTTP/1.1\r\nHost: ${host}\r\ncontent-type: application/json\r\n` +
        `accept: application/json, text/event-stream\r\nmcp-protocol-version: 2025-06-18\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    this.idAt = this.bytes.indexOf(`"id":${FIRST_ID}`) + '"id":'.length;
    this.prefix = Buffer.from(`{"jsonrpc":"2.0","id":${FIRST_ID},`);
    this.prefixIdAt = this.prefix.indexOf(String(FIRST_ID));
  }

  setId(id: number): void {
    for (let digit = ID_DIGITS - 1, rest = id; digit >= 0; digit--, rest = Math.floor(rest / 10)) {
      this.bytes[this.idAt + digit] = 48 + (rest % 10);
      this.prefix[this.prefixIdAt + digit] = 48 + (rest % 10);
    }
  }
}

/** The answer checked whole, after its id: a byte-equal repeat needs no second parse. */
let checkedTail: Buffer | undefined;

/** Checks an answer of `tools/call` (a refused call would measure the error path, not the tool). */
function checkToolAnswer(call: ToolCall, { status, body }: RawAnswer): void {
  const { prefix } = call;
  if (
    status === 200 &&
    checkedTail !== undefined &&
    body.length === prefix.length + checkedTail.length &&
    body.compare(prefix, 0, prefix.length, 0, prefix.length) === 0 &&
    body.compare(checkedTail, 0, checkedTail.length, prefix.length) === 0
  )
    return;
  const answer = JSON.parse(body.toString()) as { result?: { isError?: boolean } };
  if (status !== 200 || !answer.result || answer.result.isError)
    throw new Error(`${tool}: ${status} ${body.toString().slice(0, 300)}`);
  if (body.compare(prefix, 0, prefix.length, 0, prefix.length) === 0)
    checkedTail = Buffer.from(body.subarray(prefix.length));
}

const connections = await Promise.all(
  Array.from({ length: concurrency }, () =>
    RawHttpConnection.open(target.hostname, Number(target.port)),
  ),
);
let nextId = 0;
const toolCalls = connections.map(() => new ToolCall());

/** `count` requests at `concurrency`; their times (ms), each checked after it is taken. */
async function timedRequests(count: number): Promise<number[]> {
  const times: number[] = [];
  let next = 0;
  await Promise.all(
    connections.map(async (connection, slot) => {
      const call = toolCalls[slot]!;
      while (next++ < count) {
        if (tool) call.setId(FIRST_ID + ++nextId);
        const sentAt = performance.now();
        const answer = await connection.send(tool ? call.bytes : getBytes);
        times.push(answer.arrivedAt - sentAt);
        if (tool) checkToolAnswer(call, answer);
        else if (answer.status !== 200) throw new Error(`${url}: ${answer.status}`);
      }
    }),
  );
  return times;
}

// Untimed, at the same concurrency: this process is new for each line, and its first
// requests run while V8 compiles its code (on a background thread, taking a core from the
// server); the server's code for this read warms up with it, as a served process's has.
await timedRequests(Number(process.env.BENCH_WARMUP ?? 200));
// Whatever the start and the warm-up left is collected now, not during the timed requests.
(globalThis as { gc?: () => void }).gc?.();
// The bench starts counting the server's CPU and times here: it answers `go` on stdin.
process.stdout.write('warmed\n');
await new Promise<void>((resolve) =>
  createInterface({ input: process.stdin }).once('line', () => resolve()),
);
const collections: number[] = [];
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) collections.push(entry.duration);
});
observer.observe({ entryTypes: ['gc'] });
const cpuBefore = process.cpuUsage();
const started = performance.now();
const samples = await timedRequests(requests);
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
// Entries are delivered asynchronously: one turn of the loop before reading them.
await new Promise((resolve) => setImmediate(resolve));
observer.disconnect();
for (const connection of connections) connection.close();
process.stdin.destroy();
process.stdout.write(
  `${JSON.stringify({
    samples,
    seconds,
    clientCpuMs: (cpu.user + cpu.system) / 1000,
    clientGcs: collections.length,
    clientGcMs: collections.reduce((sum, ms) => sum + ms, 0),
  })}\n`,
);
