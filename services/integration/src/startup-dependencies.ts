/**
 * What the platform's start-up waits for (issue 21 item 4): the database, as core
 * classifies it, and the broker: NATS refusing, timing out or dropping the connection,
 * its JetStream answering "503 no responders" (a server restarted a moment ago that is
 * still recovering its streams; one with no JetStream at all is refused at connect, a
 * configuration error), or the SQL log's database gone. Anything else (an auth failure,
 * a bad URL, a migration's SQL error, a port in use) is a reason to exit, and `main` does.
 */
import { unavailableDependency } from '@platform/core';
import { BrokerUnavailableError } from './broker/broker.js';
import { RoleThreadStartError } from './role-threads/role-thread-host.js';

/** nats.js `ErrorCode`s of a server that is not there (yet), not of one that said no. */
const NATS_UNREACHABLE = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_REFUSED',
  'CONNECTION_TIMEOUT',
  'DISCONNECT',
  'TIMEOUT',
]);

export function unavailableAtStartup(error: unknown): string | undefined {
  // An adapter thread classified its own failure before its error crossed into this thread.
  if (error instanceof RoleThreadStartError) return error.unavailable;
  const broker = error instanceof BrokerUnavailableError;
  const cause = broker ? error.cause : error;
  const code = (cause as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && NATS_UNREACHABLE.has(code)) return 'the broker (NATS)';
  // nats.js's code for a JetStream request that no server took (ErrorCode.NoResponders).
  if (code === '503') return 'the broker (NATS JetStream, not ready yet)';
  // A BrokerUnavailableError without a cause is the driver's own "disconnected".
  if (broker && cause === undefined) return 'the broker';
  return unavailableDependency(cause);
}
