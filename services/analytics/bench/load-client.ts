/**
 * The benchmark's HTTP client, run in its own process so that the latency measured is
 * the server's as a client sees it, not shared with the client's own work on one event
 * loop. Sends `requests` requests at `concurrency` after 5 warm-up requests and prints the
 * latencies (ms) as one JSON array: GETs of `url`, or, given a tool name, MCP `tools/call`
 * POSTs of that tool to `url` (the stateless Streamable HTTP endpoint, as a client that
 * initialized once would send them).
 *   node bench/load-client.ts URL REQUESTS CONCURRENCY [TOOL ARGUMENTS_JSON]
 *
 * Requests go through `node:http` with one keep-alive socket per concurrent request (as
 * load tools such as wrk or autocannon do), not `fetch`: measured on the 2-core machine
 * (27 Nov), fetch cost the client 0.6–0.8 ms of CPU per request against 0.15 ms, on the
 * same two cores as the server, so a large part of each measured latency (p50 2–9 ms
 * against 0.9 ms for the same cached read) was the client's own work, not the server's.
 */
import { Agent, request as httpRequest } from 'node:http';

const [url, requestsArg, concurrencyArg, tool, argumentsArg] = process.argv.slice(2);
if (!url) {
  process.stderr.write('usage: load-client URL REQUESTS CONCURRENCY [TOOL ARGUMENTS_JSON]\n');
  process.exit(2);
}
const requests = Number(requestsArg ?? 200);
const concurrency = Number(concurrencyArg ?? 4);
const toolArguments: unknown = JSON.parse(argumentsArg ?? '{}');
const target = new URL(url);
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });

/** One request; resolves with the status and the whole body. */
function send(
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method,
        headers,
        agent,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

let id = 0;
/** The answer checked whole, after its id: a byte-equal repeat needs no second parse. */
let checkedTail: string | undefined;

/**
 * Checks an answer of `tools/call` (a refused call would measure the error path, not the
 * tool). Run after the request's time is taken, and cheap: an answer equal to the first
 * one checked, apart from its id, is not parsed again, so the client's own work (a parse
 * of the whole page, 16 KB for the LTV page, and its garbage) delays the answers of the
 * other requests in flight less.
 */
function checkToolAnswer(requestId: number, status: number, body: string): void {
  const prefix = `{"jsonrpc":"2.0","id":${requestId},`;
  if (
    status === 200 &&
    checkedTail !== undefined &&
    body.length === prefix.length + checkedTail.length &&
    body.startsWith(prefix) &&
    body.endsWith(checkedTail)
  )
    return;
  const answer = JSON.parse(body) as { result?: { isError?: boolean }; error?: unknown };
  if (status !== 200 || !answer.result || answer.result.isError)
    throw new Error(`${tool}: ${status} ${body.slice(0, 300)}`);
  if (body.startsWith(prefix)) checkedTail = body.slice(prefix.length);
}

/** One MCP `tools/call`; resolves with the check of its answer, to run once timed. */
async function callTool(): Promise<() => void> {
  const requestId = ++id;
  const { status, body } = await send(
    'POST',
    {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    JSON.stringify({
      jsonrpc: '2.0',
      id: requestId,
      method: 'tools/call',
      params: { name: tool, arguments: toolArguments },
    }),
  );
  return () => checkToolAnswer(requestId, status, body);
}

async function get(): Promise<() => void> {
  const { status } = await send('GET', {});
  return () => {
    if (status !== 200) throw new Error(`${url}: ${status}`);
  };
}

const call = tool ? callTool : get;

/** `count` requests at `concurrency`; their times (ms), each checked after it is taken. */
async function timedRequests(count: number): Promise<number[]> {
  const times: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < count) {
        const t = performance.now();
        const check = await call();
        // A request's time ends when its whole answer has arrived, as a load tool's does.
        times.push(performance.now() - t);
        check();
      }
    }),
  );
  return times;
}

// Untimed, at the same concurrency: this process is new for each line, and its first
// requests run while V8 compiles its HTTP client (on a background thread, taking a core
// from the server) — a load tool in C has no such start. The server's code for this read
// warms up with it, as a served process's has long done. 5 requests were too few to cover it.
await timedRequests(Number(process.env.BENCH_WARMUP ?? 200));
const started = performance.now();
const samples = await timedRequests(requests);
agent.destroy();
process.stdout.write(
  `${JSON.stringify({ samples, seconds: (performance.now() - started) / 1000 })}\n`,
);
