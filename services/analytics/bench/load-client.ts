/**
 * The benchmark's HTTP client, run in its own process so that the latency measured is
 * the server's as a client sees it, not shared with the client's own work on one event
 * loop. Sends `requests` requests at `concurrency` after 5 warm-up requests and prints the
 * latencies (ms) as one JSON array: GETs of `url`, or, given a tool name, MCP `tools/call`
 * POSTs of that tool to `url` (the stateless Streamable HTTP endpoint, as a client that
 * initialized once would send them).
 *   node bench/load-client.ts URL REQUESTS CONCURRENCY [TOOL ARGUMENTS_JSON]
 */
const [url, requestsArg, concurrencyArg, tool, argumentsArg] = process.argv.slice(2);
if (!url) {
  process.stderr.write('usage: load-client URL REQUESTS CONCURRENCY [TOOL ARGUMENTS_JSON]\n');
  process.exit(2);
}
const requests = Number(requestsArg ?? 200);
const concurrency = Number(concurrencyArg ?? 4);
const toolArguments: unknown = JSON.parse(argumentsArg ?? '{}');

async function get(): Promise<void> {
  const response = await fetch(url!);
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  await response.arrayBuffer();
}

let id = 0;
async function callTool(): Promise<void> {
  const response = await fetch(url!, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: ++id,
      method: 'tools/call',
      params: { name: tool, arguments: toolArguments },
    }),
  });
  const answer = (await response.json()) as { result?: { isError?: boolean }; error?: unknown };
  // A refused call would measure the error path, not the tool.
  if (!response.ok || !answer.result || answer.result.isError)
    throw new Error(`${tool}: ${response.status} ${JSON.stringify(answer).slice(0, 300)}`);
}

const send = tool ? callTool : get;
for (let i = 0; i < 5; i++) await send();
const samples: number[] = [];
let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next++ < requests) {
      const t = performance.now();
      await send();
      samples.push(performance.now() - t);
    }
  }),
);
process.stdout.write(
  `${JSON.stringify({ samples, seconds: (performance.now() - started) / 1000 })}\n`,
);
