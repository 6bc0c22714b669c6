/**
 * The server of `bench:analytics`, in its own process, started as the launcher starts the
 * service (the manifest's `nodeOptions`, then tsx): the app over one warehouse file on a
 * free loopback port. Its heap holds what a served process holds — not the bench's
 * generated data, builds and other apps (measured: with the server inside the bench's
 * process, its heap was about 65 MB and V8 had shrunk its young generation to 1 MB after
 * a full collection, so a cached read met a scavenge every 40–50 requests).
 *   node [nodeOptions] --import tsx bench/bench-server.ts FILE cold|cached LOG_FILE
 * It logs as the service does by default (`info`: one line per request), to LOG_FILE
 * rather than standard output, which carries the lines below.
 * Prints its URL as one line; on stdin, `cpu` prints this process's CPU time so far (ms,
 * DuckDB's threads included), `times` the requests' times in the server and its
 * collections since the last `times` (`server-times.ts`, one JSON line), and `close`
 * closes the app and exits.
 */
import { createInterface } from 'node:readline';
import { createLogger, listen } from '@platform/core';
import { buildAnalyticsApp } from '../src/app.js';
import { warmRequestPath } from '../src/startup/warm-request-path.js';
import { recordServerTimes } from './server-times.js';
import { createWarehouse } from '../src/warehouse/warehouse.js';

const [file, mode, logFile] = process.argv.slice(2);
if (!file || (mode !== 'cold' && mode !== 'cached') || !logFile) {
  process.stderr.write('usage: bench-server FILE cold|cached LOG_FILE\n');
  process.exit(2);
}
const logger = createLogger({ service: 'analytics', level: 'info', file: logFile });
// cold: every request runs the view. cached: the default result cache; one MCP client
// measures run_sql at the bench's concurrency, so its per-client bound is the process's.
const warehouse = createWarehouse({ file, ...(mode === 'cold' ? { cacheEntries: 0 } : {}) });
const app = await buildAnalyticsApp({
  warehouse,
  logger,
  ...(mode === 'cached' ? { sqlMaxConcurrent: 2, sqlMaxConcurrentPerClient: 2 } : {}),
});
// As main.ts does before its port opens (its default number of requests).
const warmUp = await warmRequestPath(app, { requests: 2000, logger });
logger.info(warmUp, warmUp.warmed ? 'request path warmed' : 'request path not warmed');
// After the warm-up, whose requests are not served ones.
const serverTimes = recordServerTimes(app.server);
process.stdout.write(`${await listen(app, { port: 0, host: '127.0.0.1' })}\n`);
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.stdout.write(`${(user + system) / 1000}\n`);
  } else if (line === 'times') {
    process.stdout.write(`${JSON.stringify(serverTimes.take())}\n`);
  } else if (line === 'close') {
    void app.close().then(async () => {
      await warehouse.close();
      process.exit(0);
    });
  }
});
