/**
 * Engines on this machine for tests, and loud skips when one is missing.
 */
import { connect } from 'node:net';

const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** One command in the Redis protocol (RESP). */
function resp(...args: string[]): string {
  return `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
}

/** Sends PING (after AUTH when the URL has a password); resolves true on `+PONG`. */
function redisAnswers(url: string, timeoutMs: number): Promise<boolean> {
  const parsed = new URL(url);
  const user = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  const auth = password ? resp('AUTH', ...(user ? [user] : []), password) : '';
  const commands = `${auth}${resp('PING')}`;
  return new Promise((resolve) => {
    const socket = connect({
      host: parsed.hostname || '127.0.0.1',
      port: Number(parsed.port || 6379),
    });
    let received = '';
    const finish = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.on('error', () => finish(false));
    socket.on('connect', () => socket.write(commands));
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      if (received.includes('+PONG\r\n')) finish(true);
      else if (received.startsWith('-') || received.includes('\r\n-')) finish(false);
    });
  });
}

/** `REDIS_URL`, else the local default, when a real PING answers within 500 ms; else undefined. */
export async function redisUrlForTests(): Promise<string | undefined> {
  const url = process.env.REDIS_URL || DEFAULT_REDIS_URL;
  try {
    return (await redisAnswers(url, 500)) ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * For node:test's `{ skip }`: undefined when `what` is available; otherwise prints a loud
 * line to stderr and returns the reason.
 */
export function skipReason(what: string, available: boolean): string | undefined {
  if (available) return undefined;
  const reason = `${what} is not available here`;
  process.stderr.write(`\nSKIP: ${reason} — these tests did NOT run.\n\n`);
  return reason;
}

/**
 * This process's environment without the variables that point a service at a real engine
 * (`DATABASE_URL`, `REDIS_URL`, `NATS_URL`, `BROKER_*`, `S3_*`): a service started with it
 * runs on its embedded defaults (PGlite, files, in-process queue, the SQL log), whatever
 * engines the machine running the tests has.
 */
export function embeddedDefaultsEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] =>
        entry[1] !== undefined && !/^(DATABASE_URL|REDIS_URL|NATS_URL|BROKER_|S3_)/.test(entry[0]),
    ),
  );
}
