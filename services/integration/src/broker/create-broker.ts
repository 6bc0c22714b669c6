/** Picks the broker driver: NATS JetStream when a URL is given, else the log in the SQL database. */
import type { Logger, SqlDatabase } from '@platform/core';
import type { Broker } from './broker.js';
import { createJetStreamBroker } from './jetstream/jetstream-broker.js';
import type { RetentionEntry } from './retention.js';
import { createSqlLogBroker } from './sql-log/sql-log-broker.js';

export interface CreateBrokerOptions {
  /** `nats://…`; when absent the SQL log on `db` is used. */
  natsUrl?: string | undefined;
  /** nats-server's monitoring URL, where its sync setting is read (`NATS_MONITOR_URL`). */
  natsMonitorUrl?: string | undefined;
  /** JetStream's stream and subject prefix (tests and benches: one of their own). @defaultValue the driver's */
  natsPrefix?: string | undefined;
  /** JetStream workers' linger (`JetStreamBrokerOptions.lingerMs`). @defaultValue the driver's */
  lingerMs?: number | undefined;
  /** Database of the SQL-log driver (unused with NATS: a thread running only csv or webhook opens none). */
  db: SqlDatabase | undefined;
  logger: Logger;
  /** Message limit of the SQL-log driver (JetStream takes the server's). @defaultValue 1048576 */
  sqlLogMaxMessageBytes?: number | undefined;
  /** Retention per topic (`BROKER_RETENTION`). @defaultValue none: everything is kept */
  retention?: RetentionEntry[] | undefined;
  /** How often the SQL log applies retention. @defaultValue 60000 */
  retentionIntervalMs?: number | undefined;
}

export async function createBroker(options: CreateBrokerOptions): Promise<Broker> {
  if (options.natsUrl)
    return createJetStreamBroker({
      url: options.natsUrl,
      logger: options.logger,
      monitorUrl: options.natsMonitorUrl,
      ...(options.natsPrefix ? { prefix: options.natsPrefix } : {}),
      ...(options.lingerMs === undefined ? {} : { lingerMs: options.lingerMs }),
      ...(options.retention ? { retention: options.retention } : {}),
    });
  if (!options.db)
    throw new Error('the SQL-log broker needs a database (or NATS_URL for JetStream)');
  return createSqlLogBroker({
    db: options.db,
    logger: options.logger,
    ...(options.sqlLogMaxMessageBytes ? { maxMessageBytes: options.sqlLogMaxMessageBytes } : {}),
    ...(options.retention ? { retention: options.retention } : {}),
    ...(options.retentionIntervalMs ? { retentionIntervalMs: options.retentionIntervalMs } : {}),
  });
}
