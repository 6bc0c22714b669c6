/**
 * A bounded bad-input run against every route of a Fastify app (issue 15), through
 * `inject` (no socket: nothing leaves the process). Random and mutated bodies, headers,
 * query strings, path parameters and multipart files, from a seeded generator so a run
 * can be repeated. Reports requests sent, statuses seen, every 5xx, and heap growth.
 */
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { seededRandom } from '@platform/core';

export interface FuzzOptions {
  /** Requests in all. */
  requests: number;
  /** Stop early past this many milliseconds. */
  timeLimitMs: number;
  /** @defaultValue 1 */
  seed?: number;
  /** Headers sent with every request (e.g. an API key). */
  headers?: Record<string, string>;
  /** `METHOD /url` entries left out (streams that never end). */
  skip?: readonly string[];
  /** Valid bodies per `METHOD /url`, mutated by the run. */
  samples?: Record<string, unknown>;
}

export interface FuzzReport {
  requests: number;
  elapsedMs: number;
  statuses: Record<string, number>;
  /** Up to 20 requests answered 5xx (method, url, status, a body excerpt). */
  serverErrors: Array<{ method: string; url: string; status: number; body: string }>;
  serverErrorCount: number;
  heapGrowthBytes: number;
}

/** Picks from `seededRandom` (mulberry32): a run repeats for its seed. */
function generator(seed: number) {
  const next = seededRandom(seed);
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  return { next, int, pick };
}

const STRINGS = [
  '',
  ' ',
  'a'.repeat(10_000),
  '../../etc/passwd',
  '..%2f..%2fetc%2fpasswd',
  '%00',
  '\u0000',
  '\ud800',
  '😀',
  "' OR 1=1 --",
  '"; DROP TABLE contracts; --',
  '<script>alert(1)</script>',
  '=HYPERLINK("http://x")',
  '-1',
  '0',
  '1e309',
  'NaN',
  'Infinity',
  'null',
  'true',
  '{}',
  '[]',
  '__proto__',
  'constructor',
  '%',
  '%zz',
  'x'.repeat(300),
];

const VALUES: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  Number.MAX_SAFE_INTEGER,
  -1e308,
  [],
  {},
  [null],
  { __proto__: { polluted: true } },
  { constructor: { prototype: { polluted: true } } },
  ...STRINGS,
];

function mutate(value: unknown, rng: ReturnType<typeof generator>, depth = 0): unknown {
  if (depth > 3 || rng.next() < 0.2) return rng.pick(VALUES);
  if (Array.isArray(value)) {
    const copy = value.map((item) => mutate(item, rng, depth + 1));
    if (rng.next() < 0.3) copy.push(rng.pick(VALUES));
    return copy;
  }
  if (value && typeof value === 'object') {
    const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    const keys = Object.keys(copy);
    if (keys.length > 0 && rng.next() < 0.5) {
      const key = rng.pick(keys);
      copy[key] = mutate(copy[key], rng, depth + 1);
    }
    if (keys.length > 0 && rng.next() < 0.2) delete copy[rng.pick(keys)];
    if (rng.next() < 0.2) copy[rng.pick(STRINGS) || 'k'] = rng.pick(VALUES);
    return copy;
  }
  return rng.pick(VALUES);
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-16',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/xml',
];

function body(
  rng: ReturnType<typeof generator>,
  sample: unknown,
): { payload: string | Buffer; contentType: string } {
  const choice = rng.int(6);
  if (choice === 0)
    return {
      payload: Buffer.from(Array.from({ length: rng.int(2048) }, () => rng.int(256))),
      contentType: rng.pick(CONTENT_TYPES),
    };
  if (choice === 1)
    return { payload: '{"a":' + '['.repeat(rng.int(5000)), contentType: 'application/json' };
  if (choice === 2) {
    const boundary = 'fuzz' + rng.int(1e6);
    const file = Buffer.from(Array.from({ length: rng.int(4096) }, () => rng.int(256)));
    const names = ['replay', 'skin', 'file', rng.pick(STRINGS)];
    const part = `--${boundary}\r\nContent-Disposition: form-data; name="${rng.pick(names)}"; filename="${rng.pick(['a.osr', 'a.osk', '../../x', rng.pick(STRINGS)])}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
    const tail = rng.next() < 0.3 ? '' : `\r\n--${boundary}--\r\n`;
    return {
      payload: Buffer.concat([Buffer.from(part), file, Buffer.from(tail)]),
      contentType: `multipart/form-data; boundary=${boundary}`,
    };
  }
  return {
    payload: JSON.stringify(mutate(sample ?? {}, rng)),
    contentType: rng.next() < 0.9 ? 'application/json' : rng.pick(CONTENT_TYPES),
  };
}

/** encodeURIComponent, with a lone surrogate sent as its raw percent bytes. */
const encode = (value: string) => {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
};

function url(template: string, rng: ReturnType<typeof generator>): string {
  const path = template
    .split('::')
    .map((part) => part.replace(/:[A-Za-z_]+|\*/g, () => encode(rng.pick(STRINGS) || 'x')))
    .join(':');
  if (rng.next() < 0.5) return path;
  const keys = [
    'limit',
    'offset',
    'status',
    'year',
    'decile',
    'min_ratio',
    'sessionId',
    'adapterType',
    rng.pick(STRINGS),
  ];
  const query = Array.from(
    { length: 1 + rng.int(3) },
    () => `${encode(rng.pick(keys))}=${encode(String(rng.pick(VALUES)))}`,
  );
  return `${path}?${query.join('&')}`;
}

/** Strings a header can carry (visible ASCII and spaces only). */
const HEADER_SAFE = STRINGS.filter((value) => /^[\x20-\x7e]*$/.test(value));

function headers(rng: ReturnType<typeof generator>): Record<string, string> {
  const out: Record<string, string> = {};
  const names = [
    'if-none-match',
    'range',
    'origin',
    'edge-connecting-ip',
    'x-request-id',
    'accept',
    'authorization',
    'x-render-signature',
    'x-render-timestamp',
  ];
  for (let i = rng.int(3); i > 0; i -= 1) out[rng.pick(names)] = rng.pick(HEADER_SAFE) || 'x';
  return out;
}

export async function fuzzApp(app: FastifyInstance, options: FuzzOptions): Promise<FuzzReport> {
  const rng = generator(options.seed ?? 1);
  const routes = app.routeAccess.filter(
    (route) =>
      !route.url.startsWith('/docs/') && !options.skip?.includes(`${route.method} ${route.url}`),
  );
  const report: FuzzReport = {
    requests: 0,
    elapsedMs: 0,
    statuses: {},
    serverErrors: [],
    serverErrorCount: 0,
    heapGrowthBytes: 0,
  };
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const started = Date.now();
  while (report.requests < options.requests && Date.now() - started < options.timeLimitMs) {
    const route = rng.pick(routes);
    const target = url(route.url, rng);
    const withBody = !['GET', 'HEAD', 'OPTIONS'].includes(route.method) || rng.next() < 0.1;
    const { payload, contentType } = body(rng, options.samples?.[`${route.method} ${route.url}`]);
    const response = await app.inject({
      method: route.method as 'GET',
      url: target,
      remoteAddress: '127.0.0.1',
      headers: {
        ...headers(rng),
        ...options.headers,
        ...(withBody ? { 'content-type': contentType } : {}),
      },
      ...(withBody ? { payload } : {}),
    });
    report.requests += 1;
    report.statuses[response.statusCode] = (report.statuses[response.statusCode] ?? 0) + 1;
    if (response.statusCode >= 500 && ![503, 504, 502].includes(response.statusCode)) {
      report.serverErrorCount += 1;
      if (report.serverErrors.length < 20)
        report.serverErrors.push({
          method: route.method,
          url: target.slice(0, 200),
          status: response.statusCode,
          body: response.body.slice(0, 200),
        });
    }
  }
  report.elapsedMs = Date.now() - started;
  gc?.();
  report.heapGrowthBytes = process.memoryUsage().heapUsed - heapBefore;
  return report;
}

/** Run size from the environment: `npm run fuzz` sets FUZZ_REQUESTS / FUZZ_TIME_MS; `npm test` runs 300. */
export function fuzzSettings(): Pick<FuzzOptions, 'requests' | 'timeLimitMs' | 'seed'> {
  return {
    requests: Number(process.env.FUZZ_REQUESTS ?? 300),
    timeLimitMs: Number(process.env.FUZZ_TIME_MS ?? 20_000),
    seed: Number(process.env.FUZZ_SEED ?? 1),
  };
}

/** No 5xx beyond the documented 502/503/504, and heap growth under `maxHeapGrowthBytes` (default 200 MB). */
export function assertFuzzClean(report: FuzzReport, maxHeapGrowthBytes = 200 * 1024 * 1024): void {
  assert.ok(report.requests > 0, 'the run sent requests');
  assert.deepEqual(report.serverErrors, [], 'no 5xx beyond the documented 502/503/504');
  assert.ok(
    report.heapGrowthBytes < maxHeapGrowthBytes,
    `heap grew ${report.heapGrowthBytes} bytes`,
  );
}
