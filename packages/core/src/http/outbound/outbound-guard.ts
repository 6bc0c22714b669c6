/**
 * The one way the platform requests an address it was given (webhook targets, adapter
 * admin URLs, the beatmap mirror, the LLM base URL): the name is resolved, every answer
 * is checked against the forbidden ranges (`address-ranges.ts`) unless `ALLOWED_OUTBOUND`
 * lists it, and the connection is made to the address that was checked: the check runs
 * inside the socket's own `lookup`, so DNS cannot answer differently between check and
 * connect (rebinding). Redirects are followed by hand, each hop checked the same way; the
 * answer is capped in bytes and the whole exchange in time.
 *
 * `fetch` returns a standard `Response` (its body already read within the cap), so
 * callers written for `fetch` adopt it unchanged; callers with their own `http.request`
 * use `agents`, which check at connect time too.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type BlockList, type LookupFunction } from 'node:net';
import { allowList, forbiddenRange, isAllowed } from './address-ranges.js';

/** Resolves a host name to every address it has (injected in tests). */
export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export class OutboundRefusedError extends Error {
  override readonly name = 'OutboundRefusedError';
  readonly code = 'OUTBOUND_REFUSED';
}

export class OutboundLimitError extends Error {
  override readonly name = 'OutboundLimitError';
}

export interface OutboundGuardOptions {
  /** Addresses and CIDR ranges allowed although forbidden (`ALLOWED_OUTBOUND`). @defaultValue none */
  allowed?: readonly string[];
  /** @defaultValue the system resolver (`dns.lookup`) */
  resolve?: Resolver;
  /** Socket limits of `agents` (keep-alive is always on). @defaultValue Node's */
  maxSockets?: number;
}

export interface GuardedRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  signal?: AbortSignal;
  /** The whole exchange, redirects included. @defaultValue 30000 */
  timeoutMs?: number;
  /** Largest answer body; past it the request fails with `OutboundLimitError`. @defaultValue 10 MiB */
  maxBytes?: number;
  /** @defaultValue 5 (0: a redirect is answered as it is) */
  maxRedirects?: number;
}

export interface OutboundGuard {
  /** A `fetch` for given addresses: checked, pinned, redirect-checked, capped. */
  fetch(url: string | URL, init?: GuardedRequestInit): Promise<Response>;
  /** Keep-alive agents whose connections are checked the same way (for `http.request`). */
  readonly agents: { readonly http: http.Agent; readonly https: https.Agent };
  /** Resolves `url`'s host and throws `OutboundRefusedError` when it may not be reached (early feedback). */
  check(url: string | URL): Promise<void>;
}

/**
 * The guard as a `typeof fetch` for code that takes one (string bodies and plain or
 * `Headers` headers; streams are not sent). `limits` apply to every call.
 */
export function guardedFetch(
  guard: Pick<OutboundGuard, 'fetch'>,
  limits: Pick<GuardedRequestInit, 'timeoutMs' | 'maxBytes' | 'maxRedirects'> = {},
): typeof fetch {
  return async (input, init = {}) => {
    const url = input instanceof Request ? input.url : input;
    const body = init.body;
    if (body !== undefined && body !== null && typeof body !== 'string' && !Buffer.isBuffer(body))
      throw new TypeError('guardedFetch sends string or Buffer bodies only');
    return guard.fetch(url, {
      ...limits,
      ...(init.method ? { method: init.method } : {}),
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      ...(body !== undefined && body !== null ? { body } : {}),
      ...(init.signal ? { signal: init.signal } : {}),
    });
  };
}

/**
 * The answer's body as a web stream that fails with `OutboundLimitError` past `maxBytes`
 * (an answer without a length, or lying about it) and with the socket's error when the
 * connection breaks or the time limit aborts it.
 */
function cappedBody(
  answer: http.IncomingMessage,
  maxBytes: number,
  origin: string,
): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let size = 0;
      let settled = false;
      const fail = (error: Error) => {
        if (settled) return;
        settled = true;
        controller.error(error);
        answer.destroy();
      };
      answer.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (settled) return;
        if (size > maxBytes) {
          fail(new OutboundLimitError(`the answer of ${origin} is larger than ${maxBytes} bytes`));
          return;
        }
        controller.enqueue(new Uint8Array(chunk));
      });
      answer.on('end', () => {
        if (settled) return;
        settled = true;
        controller.close();
      });
      answer.on('error', fail);
      answer.on('aborted', () => fail(new Error(`the answer of ${origin} broke off`)));
    },
    cancel() {
      answer.destroy();
    },
  });
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NEUTRAL_HEADERS = new Set(['accept', 'accept-language', 'content-type', 'user-agent']);

function neutralHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers ?? {}).filter(([name]) => NEUTRAL_HEADERS.has(name.toLowerCase())),
  );
}

export function createOutboundGuard(options: OutboundGuardOptions = {}): OutboundGuard {
  const allowed: BlockList = allowList(options.allowed ?? []);
  const resolve = options.resolve ?? systemResolver;

  const refusal = (host: string, address: string): OutboundRefusedError | undefined => {
    if (isAllowed(allowed, address)) return undefined;
    const range = forbiddenRange(address);
    if (range === undefined) return undefined;
    const shown = host === address ? address : `${host} (${address})`;
    return new OutboundRefusedError(
      `${shown} is in a ${range} range; list it in ALLOWED_OUTBOUND to allow it`,
    );
  };

  /** Every address of `host`, all checked; a name with one forbidden answer is refused. */
  const resolveChecked = async (host: string) => {
    const bare = host.replace(/^\[|\]$/g, '');
    const addresses = isIP(bare) ? [{ address: bare, family: isIP(bare) }] : await resolve(bare);
    if (addresses.length === 0) throw new OutboundRefusedError(`${bare} has no address`);
    for (const { address } of addresses) {
      const error = refusal(bare, address);
      if (error) throw error;
    }
    return addresses;
  };

  // net calls this to connect, with `all: true` when it may try several addresses.
  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolveChecked(hostname).then(
      (addresses) => {
        const family = lookupOptions.family;
        const usable = family ? addresses.filter((entry) => entry.family === family) : addresses;
        if (usable.length === 0) {
          callback(new OutboundRefusedError(`${hostname} has no IPv${family} address`), '', 0);
        } else if (lookupOptions.all) {
          (callback as unknown as (error: null, all: typeof usable) => void)(null, usable);
        } else {
          callback(null, usable[0]!.address, usable[0]!.family);
        }
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };

  // An IP literal never reaches `lookup`: it is checked before connecting.
  const guardConnection = <T extends http.Agent>(agent: T): T => {
    const create = agent.createConnection.bind(agent) as (
      options: { host?: string },
      callback: (error: Error | null, socket?: unknown) => void,
    ) => unknown;
    (agent as unknown as { createConnection: typeof create }).createConnection = (
      opts,
      callback,
    ) => {
      const host = (opts.host ?? '').replace(/^\[|\]$/g, '');
      const error = isIP(host) ? refusal(host, host) : undefined;
      if (error) {
        callback(error);
        return undefined;
      }
      return create({ ...opts, lookup } as typeof opts, callback);
    };
    return agent;
  };
  const sockets = options.maxSockets === undefined ? {} : { maxSockets: options.maxSockets };
  const agents = {
    http: guardConnection(
      new http.Agent({ keepAlive: true, lookup, ...sockets } as http.AgentOptions),
    ),
    https: guardConnection(
      new https.Agent({ keepAlive: true, lookup, ...sockets } as https.AgentOptions),
    ),
  };

  const once = (url: URL, init: GuardedRequestInit, signal: AbortSignal) =>
    new Promise<http.IncomingMessage>((resolvePromise, reject) => {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        reject(new OutboundRefusedError(`${url.protocol} URLs are not fetched`));
        return;
      }
      const client = url.protocol === 'https:' ? https : http;
      const request = client.request(url, {
        method: init.method ?? 'GET',
        headers: init.headers,
        agent: url.protocol === 'https:' ? agents.https : agents.http,
        signal,
      });
      request.on('error', reject);
      request.on('response', resolvePromise);
      request.end(init.body);
    });

  return {
    agents,
    async check(url) {
      await resolveChecked(new URL(url).hostname);
    },
    async fetch(input, init = {}) {
      const timeoutMs = init.timeoutMs ?? 30_000;
      const maxBytes = init.maxBytes ?? 10 * 1024 * 1024;
      const maxRedirects = init.maxRedirects ?? 5;
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = init.signal ? AbortSignal.any([timeout, init.signal]) : timeout;
      let url = new URL(input);
      let current = init;
      for (let hop = 0; ; hop += 1) {
        const answer = await once(url, current, signal);
        const status = answer.statusCode ?? 0;
        const location = answer.headers.location;
        if (REDIRECTS.has(status) && location && maxRedirects > 0) {
          answer.resume();
          if (hop >= maxRedirects)
            throw new OutboundLimitError(`more than ${maxRedirects} redirects from ${url.origin}`);
          const next = new URL(location, url);
          // Credentials stay with the origin they were meant for.
          if (next.origin !== url.origin)
            current = { ...current, headers: neutralHeaders(current.headers) };
          url = next;
          // 303 (and 301/302 after a POST, as browsers do) continues as a GET without a body.
          if (status === 303 || ((status === 301 || status === 302) && current.method === 'POST')) {
            const { body: _body, ...rest } = current;
            current = { ...rest, method: 'GET' };
          }
          continue;
        }
        if (Number(answer.headers['content-length'] ?? 0) > maxBytes) {
          answer.destroy();
          throw new OutboundLimitError(
            `the answer of ${url.origin} is larger than ${maxBytes} bytes`,
          );
        }
        const headers = new Headers();
        for (const [name, value] of Object.entries(answer.headers)) {
          for (const one of [value ?? []].flat()) headers.append(name, one);
        }
        const nullBody = status === 204 || status === 304 || status < 200;
        const response = new Response(nullBody ? null : cappedBody(answer, maxBytes, url.origin), {
          status,
          headers,
        });
        Object.defineProperty(response, 'url', { value: url.toString() });
        return response;
      }
    },
  };
}
