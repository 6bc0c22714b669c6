/**
 * What the main thread and an adapter role's worker thread say to each other: the
 * thread's start data, the main thread's requests (refresh, stop) and the thread's
 * answers. Everything here crosses a `MessagePort`, so it is plain data.
 */
import type { AdapterRole } from '../adapter-roles.js';
import type { IntegrationEnv } from '../config.js';

/**
 * How a thread opens the same engines as the main thread, on connections of its own:
 * PostgreSQL's URL (PGlite is one session, which other threads cannot open again)
 * and the broker (JetStream's URL and, for tests and benches, their stream prefix; without
 * `natsUrl` the SQL log in that database).
 */
export interface ThreadEngines {
  databaseUrl?: string | undefined;
  natsUrl?: string | undefined;
  natsPrefix?: string | undefined;
  lingerMs?: number | undefined;
}

export interface RoleThreadData {
  role: AdapterRole;
  env: IntegrationEnv;
  engines: ThreadEngines;
  controlPlaneUrl: string;
  /** The main thread's logger level (tests and benches quieten theirs below LOG_LEVEL). */
  logLevel: string;
}

export type ToRoleThread = { type: 'refresh'; id: number } | { type: 'stop' };

export type FromRoleThread =
  | { type: 'ready'; url: string; consumerGroup: string; adapterType: string }
  /** The start failed; `unavailable` names the dependency that was not there (startup-dependencies.ts). */
  | { type: 'failed'; message: string; unavailable: string | undefined }
  | { type: 'refreshed'; id: number; error?: string }
  /** The adapter stopped (its in-flight batch finished) and the thread's engines closed. */
  | { type: 'stopped' };
