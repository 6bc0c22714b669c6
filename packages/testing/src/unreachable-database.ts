/**
 * A fresh test database that a service cannot reach yet (issue 21 item 4): `url` leads
 * through a TCP proxy that drops every connection as it opens, until `proxy.restore()`.
 * The test's end closes the proxy and drops the database.
 */
import { randomBytes } from 'node:crypto';
import { createTestDatabase } from './postgres.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

export async function unreachableTestDatabase(
  t: { after(fn: () => unknown): void },
  prefix: string,
): Promise<{ url: string; proxy: TcpProxy }> {
  const database = await createTestDatabase(prefix);
  t.after(() => database.drop());
  const direct = new URL(database.url);
  const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
  t.after(() => proxy.close());
  proxy.cut();
  const url = new URL(database.url);
  url.port = String(proxy.port);
  return { url: url.toString(), proxy };
}

/** A URL on the test server naming a database that does not exist: a configuration error. */
export function missingDatabaseUrl(serverUrl: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/startup_retry_missing_${randomBytes(4).toString('hex')}`;
  return url.toString();
}
