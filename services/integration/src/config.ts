/**
 * Environment of the integration platform (validated once at start): ports of each part,
 * which parts run in this process, the control plane's URL for adapters, CORS origins,
 * attachment refresh, adapter liveness, and per-adapter retry policies.
 */
import {
  booleanVar,
  coreEnvSchema,
  listVar,
  nonNegativeIntVar,
  portVar,
  positiveIntVar,
  urlVar,
} from '@platform/core';
import { z } from 'zod';
import { parseRetention } from './broker/retention.js';

/** The service's name: logs, its folder under DATA_DIR, its database. */
export const SERVICE = 'integration';

export const ROLES = ['submission', 'control-plane', 'relational', 'csv', 'webhook'] as const;
export type Role = (typeof ROLES)[number];

/** Where each part answers when nothing is configured (the documents' `servers`). */
export const DEFAULT_PORTS = {
  PORT: 8080,
  RELATIONAL_ADAPTER_PORT: 8081,
  CSV_ADAPTER_PORT: 8082,
  CONTROL_PLANE_PORT: 8083,
  WEBHOOK_ADAPTER_PORT: 8084,
} as const;

export const integrationEnvSchema = coreEnvSchema.extend({
  /**
   * Core's setting, on by default here: the embedded default runs the broker's log, the
   * read model and all three targets on one PGlite, so on its own thread it frees the
   * main thread for HTTP and the adapters (on two cores the batch endpoint a fifth to a
   * quarter faster and the soak a quarter to a third shorter; on one core the batch
   * endpoint faster too: README, "PGlite on a thread"). Ignored with DATABASE_URL.
   * @defaultValue true
   */
  PGLITE_THREAD: booleanVar(true),
  /** Submission service. @defaultValue 8080 */
  PORT: portVar(DEFAULT_PORTS.PORT),
  RELATIONAL_ADAPTER_PORT: portVar(DEFAULT_PORTS.RELATIONAL_ADAPTER_PORT),
  CSV_ADAPTER_PORT: portVar(DEFAULT_PORTS.CSV_ADAPTER_PORT),
  CONTROL_PLANE_PORT: portVar(DEFAULT_PORTS.CONTROL_PLANE_PORT),
  WEBHOOK_ADAPTER_PORT: portVar(DEFAULT_PORTS.WEBHOOK_ADAPTER_PORT),
  /** Parts run by this process. @defaultValue all of them */
  INTEGRATION_ROLES: listVar()
    .refine(
      (roles) =>
        roles.length > 0 && roles.every((role) => (ROLES as readonly string[]).includes(role)),
      {
        message: `expected a comma-separated list of ${ROLES.join(', ')}`,
      },
    )
    .default([...ROLES]),
  /**
   * Where the adapter roles of this process run: `main`, on the main thread beside the
   * other parts; `workers`, each in a worker thread of its own with its own database and
   * broker connections (needs PostgreSQL: PGlite is one session, which they cannot open
   * again). Main by default: on 2 cores the threads cost more CPU a record than they free
   * on the main thread (README, "Adapter threads"). @defaultValue main
   */
  ADAPTER_THREADS: z.enum(['main', 'workers']).default('main'),
  /** Control plane for adapters. @defaultValue the control plane of this process, else http://127.0.0.1:8083 */
  CONTROL_PLANE_URL: urlVar(['http', 'https']).optional(),
  /** Submission service the console (on the control plane) reads records from. @defaultValue this process's, else http://127.0.0.1:PORT */
  SUBMISSION_URL: urlVar(['http', 'https']).optional(),
  /** The API key the platform's parts present to each other (with API_KEYS). @defaultValue the first key of API_KEYS holding every scope */
  PLATFORM_API_KEY: z.string().min(16, { message: 'expected at least 16 characters' }).optional(),
  /** nats-server's monitoring URL (`http://127.0.0.1:8222`): the broker reads its sync setting there. @defaultValue none (the setting is then unknown and a power loss assumed to lose the last 2 minutes) */
  NATS_MONITOR_URL: urlVar(['http', 'https']).optional(),
  /** Browser origins allowed on /interns (`*` for any). @defaultValue none */
  CORS_ORIGINS: listVar().default([]),
  /** How often adapters re-read attachments and re-register (heartbeat). @defaultValue 5000 */
  ATTACHMENT_REFRESH_MS: positiveIntVar(5000),
  /** An adapter type is reported live when it re-registered within this many seconds. @defaultValue 30 */
  ADAPTER_LIVENESS_SECONDS: positiveIntVar(30),
  /** Tables of the adapter database's current schema relational attachments may write besides records and interns; any other table name is a table of the contract's own schema. @defaultValue none */
  RELATIONAL_ALLOWED_TABLES: listVar().default([]),
  /** Longest value (characters) of a contract field that declares no maxLength. @defaultValue 10000 */
  FIELD_MAX_LENGTH: positiveIntVar(10_000),
  /** Largest message (bytes) the SQL-log broker takes; JetStream uses the server's max_payload. @defaultValue 1048576 */
  SQL_LOG_MAX_MESSAGE_BYTES: positiveIntVar(1024 * 1024),
  /**
   * Broker retention per topic: `<topic or prefix*>=<age>/<size>[/drop-unread],…`, e.g.
   * `*=7d/1GiB,platform.dlq=30d/-` (see src/broker/retention.ts). @defaultValue none: everything is kept
   */
  BROKER_RETENTION: z
    .string()
    .optional()
    .transform((text, ctx) => {
      try {
        return parseRetention(text);
      } catch (error) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: (error as Error).message });
        return z.NEVER;
      }
    }),
  /** How often the SQL-log broker applies retention. @defaultValue 60000 */
  BROKER_RETENTION_INTERVAL_MS: positiveIntVar(60_000),
  /** Journal entries a csv attachment may hold beyond twice its live state (keys, tombstones, positions) before the journal is compacted. @defaultValue 100000 */
  CSV_JOURNAL_COMPACT_ENTRIES: positiveIntVar(100_000),
  /** Offsets below each partition's stored position within which a csv attachment keeps every applied recordId (more than the broker can lose of a partition). @defaultValue 10000 */
  CSV_RECORD_IDS_KEEP: positiveIntVar(10_000),
  /** Delivered recordIds the webhook adapter keeps below each partition's stored position. @defaultValue 10000 */
  WEBHOOK_DELIVERED_KEEP: positiveIntVar(10_000),
  /** Attach the interns contract to the relational and csv adapters at first start. @defaultValue true */
  SEED_INTERNS: booleanVar(true),
  /** Attempts in all for one record (first included) and the first backoff (doubling up to 5 s), per adapter. @defaultValue 3 and 200 */
  RELATIONAL_RETRY_ATTEMPTS: positiveIntVar(3),
  RELATIONAL_RETRY_BACKOFF_MS: positiveIntVar(200),
  CSV_RETRY_ATTEMPTS: positiveIntVar(3),
  CSV_RETRY_BACKOFF_MS: positiveIntVar(200),
  WEBHOOK_RETRY_ATTEMPTS: positiveIntVar(3),
  WEBHOOK_RETRY_BACKOFF_MS: positiveIntVar(200),
  /**
   * While a target is down (connection refused, timeout, 5xx), its adapter holds its
   * position and retries with growing back-off (up to 5 s a wait) for this long before
   * records are dead-lettered as RETRY_EXHAUSTED; 0 turns the allowance off. @defaultValue 300000 (5 minutes)
   */
  RELATIONAL_OUTAGE_BUDGET_MS: nonNegativeIntVar(300_000),
  CSV_OUTAGE_BUDGET_MS: nonNegativeIntVar(300_000),
  WEBHOOK_OUTAGE_BUDGET_MS: nonNegativeIntVar(300_000),
});

export type IntegrationEnv = z.output<typeof integrationEnvSchema>;
