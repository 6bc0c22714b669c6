/**
 * The benchmark's HTTP client, run in its own process so that the latency measured is
 * the server's as a client sees it, not shared with the client's own work on one event
 * loop. Sends `requests` GETs of `url` at `concurrency` after 5 warm-up requests and
 * prints the latencies (ms) as one JSON array.
 *   node bench/load-client.ts URL REQUESTS CONCURRENCY
 */
const [url, requestsArg, concurrencyArg] = process.argv.slice(2);
if (!url) {
  process.stderr.write('usage: load-client URL REQUESTS CONCURRENCY\n');
  process.exit(2);
}
const requests = Number(requestsArg ?? 200);
const concurrency = Number(concurrencyArg ?? 4);

async function get(): Promise<void> {
  const response = await fetch(url!);
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  await response.arrayBuffer();
}

for (let i = 0; i < 5; i++) await get();
const samples: number[] = [];
let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next++ < requests) {
      const t = performance.now();
      await get();
      samples.push(performance.now() - t);
    }
  }),
);
process.stdout.write(
  `${JSON.stringify({ samples, seconds: (performance.now() - started) / 1000 })}\n`,
);
