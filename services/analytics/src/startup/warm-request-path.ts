/**
 * Runs the request path once it is built and before the port opens, so the first users
 * of a new process are answered by compiled code, not by V8's interpreter.
 *
 * Why (README, Benchmark, "The first cached lines"): a fresh process answered its first
 * ~2,000 cached reads at 2–3× the CPU of later ones, whichever read came first (measured
 * by running the bench's lines in other orders: the first REST line and the first MCP line
 * were the dear ones, and the same read run again later was cheap), almost all of it user
 * time on the main thread plus V8's compiler threads — the JIT warming up Node's HTTP
 * server, Fastify, the access checks, the log and this service's handlers. Requests sent
 * in-process (`app.inject`) warmed about half of it: Node's sockets and HTTP parser are
 * part of the path, so these requests go over a loopback socket to a server of their own
 * (`app.routing`, the app's handler), closed before the app listens.
 *
 * The requests are the five REST reads and their MCP tools with their defaults, answered
 * from the result cache after the first of each, as a served process's are. They are
 * nobody's: not in the request log (each is logged to /dev/null through a logger made as
 * the service's, so the logging code warms too) and not in the metrics (the request
 * histogram and the tool-call counter are reset after them, before any request is served).
 * The warm-up stops at the first answer that is not a 200 — a warehouse not built yet, a
 * service that wants API keys or names other hosts — and says why: it warms the path a
 * served read takes, or nothing.
 */
import { Agent, createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, type Logger } from '@platform/core';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { READ_NAMES, READS } from '../sales/catalog.js';

/** On a raw request of the warm-up: the logger its request logs go to. */
const WARM_UP_LOGGER = Symbol('warm-up logger');

/** Requests at once: what the bench and a dashboard load send. */
const CONCURRENCY = 4;

/** The metrics the warm-up's requests count in, reset after it. */
const COUNTED_IN = ['http_request_duration_seconds', 'analytics_tool_calls_total'];

/**
 * For `app.setChildLoggerFactory`: a warm-up request logs to its own logger, every other
 * request to the app's (Fastify's default, `logger.child`).
 */
export const requestLogger: Parameters<FastifyInstance['setChildLoggerFactory']>[0] = (
  logger,
  bindings,
  options,
  raw,
) => {
  const own = (raw as IncomingMessage & { [WARM_UP_LOGGER]?: FastifyBaseLogger })[WARM_UP_LOGGER];
  return (own ?? logger).child(bindings, options);
};

export type WarmUpResult =
  { warmed: true; requests: number; ms: number } | { warmed: false; reason: string };

interface WarmUpRequest {
  label: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

function warmUpRequests(): WarmUpRequest[] {
  return READ_NAMES.flatMap((name) => {
    const spec = READS[name];
    return [
      { label: `GET ${spec.path}`, method: 'GET', path: spec.path },
      {
        label: `MCP ${spec.tool}`,
        method: 'POST',
        path: '/mcp',
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: spec.tool, arguments: {} },
        }),
      },
    ] satisfies WarmUpRequest[];
  });
}

/**
 * Sends `requests` requests (the reads and MCP view tools in turn, `CONCURRENCY` at once)
 * through the app over a loopback socket. Call it before `listen`: the metrics it resets
 * must count no served request yet.
 */
export async function warmRequestPath(
  app: FastifyInstance,
  options: { requests: number; logger: Logger },
): Promise<WarmUpResult> {
  if (options.requests <= 0) return { warmed: false, reason: 'turned off' };
  const started = performance.now();
  await app.ready();
  const quietLogger = createLogger({
    service: 'analytics',
    level: options.logger.level,
    file: '/dev/null',
  });
  const server = createServer((raw, response) => {
    (raw as IncomingMessage & { [WARM_UP_LOGGER]?: Logger })[WARM_UP_LOGGER] = quietLogger;
    app.routing(raw, response);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const send = (target: WarmUpRequest) =>
    new Promise<number>((answered, failed) => {
      const outgoing = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path: target.path,
          method: target.method,
          agent,
          headers: target.body
            ? {
                'content-type': 'application/json',
                accept: 'application/json, text/event-stream',
                'mcp-protocol-version': '2025-06-18',
              }
            : {},
        },
        (response) => {
          response.resume();
          response.on('end', () => answered(response.statusCode ?? 0));
          response.on('error', failed);
        },
      );
      outgoing.on('error', failed);
      outgoing.end(target.body);
    });
  try {
    const targets = warmUpRequests();
    // Each once alone first: one that is refused is not the path to warm.
    for (const target of targets) {
      const status = await send(target);
      if (status !== 200) return { warmed: false, reason: `${target.label} answered ${status}` };
    }
    let next = targets.length;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < options.requests) await send(targets[next++ % targets.length]!);
      }),
    );
    return {
      warmed: true,
      requests: Math.max(options.requests, targets.length),
      ms: Math.round(performance.now() - started),
    };
  } finally {
    agent.destroy();
    server.closeAllConnections();
    await new Promise((closed) => server.close(closed));
    quietLogger.flush();
    for (const name of COUNTED_IN) app.metricsRegistry.getSingleMetric(name)?.reset();
  }
}
