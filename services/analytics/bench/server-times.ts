/**
 * The bench server's own view of each request, for a distribution that the machine's
 * load and the load client disturb less than a client's latency: the time from Node's
 * `request` event (headers parsed; the handler about to run) to the answer's `finish`
 * (its last bytes handed to the socket), and the collections the process made meanwhile.
 * It leaves out the wait before the event loop read the request and the kernel's delivery
 * of the answer; a client's sample holds both. Costs two clock reads and a listener per
 * request (bench only: the service records its own histogram, `http_request_duration_seconds`).
 */
import type { Server } from 'node:http';
import { PerformanceObserver } from 'node:perf_hooks';

export interface ServerTimes {
  requests: number;
  /** Request event to finish, ms. */
  p50: number;
  p99: number;
  max: number;
  /** Collections since the last `take`: how many, their summed and longest pause (ms). */
  gcs: number;
  gcMs: number;
  gcMaxMs: number;
}

export function recordServerTimes(server: Server): { take(): ServerTimes } {
  let times: number[] = [];
  let pauses: number[] = [];
  server.prependListener('request', (_request, response) => {
    const received = performance.now();
    response.once('finish', () => times.push(performance.now() - received));
  });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) pauses.push(entry.duration);
  }).observe({ entryTypes: ['gc'] });
  return {
    take() {
      const sorted = times.sort((a, b) => a - b);
      const at = (p: number) =>
        sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
      const result = {
        requests: sorted.length,
        p50: at(50),
        p99: at(99),
        max: sorted.at(-1) ?? 0,
        gcs: pauses.length,
        gcMs: pauses.reduce((sum, ms) => sum + ms, 0),
        gcMaxMs: Math.max(0, ...pauses),
      };
      times = [];
      pauses = [];
      return result;
    },
  };
}
