/** PostgreSQL driver: a `pg` pool; one dedicated client holds LISTEN subscriptions. */
import pg from 'pg';
import type { Logger } from 'pino';
import { advisoryLocked, assertChannelName } from '../advisory-key.js';
import { JSON_TYPE_OIDS, parseJsonValue } from '../json-values.js';
import type {
  QueryOptions,
  QueryResult,
  SqlDatabase,
  SqlExecutor,
  Unlisten,
} from '../sql-database.js';

export interface PostgresOptions {
  connectionString: string;
  /** @defaultValue 10 */
  poolSize?: number;
  /** @defaultValue 5000 */
  connectTimeoutMs?: number;
  /** Per-statement limit, so a stuck query cannot hold a connection forever. @defaultValue 30000 */
  statementTimeoutMs?: number;
  logger?: Logger;
}

interface Channel {
  handlers: Set<(payload: string) => void>;
  /** Settles when its LISTEN has been answered. */
  ready: Promise<void>;
}

export function createPostgresDatabase(options: PostgresOptions): SqlDatabase {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    statement_timeout: options.statementTimeoutMs ?? 30_000,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        JSON_TYPE_OIDS.includes(oid)
          ? parseJsonValue
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client losing its connection must not crash the process.
  pool.on('error', (error) => options.logger?.warn({ err: error }, 'idle PostgreSQL client error'));

  const run = async <R>(
    client: pg.Pool | pg.PoolClient,
    text: string,
    params?: readonly unknown[],
    options?: QueryOptions,
  ) => {
    const result = options?.prepareAs
      ? await client.query({ name: options.prepareAs, text, values: params as unknown[] })
      : await client.query(text, params as unknown[] | undefined);
    return {
      rows: result.rows as R[],
      rowCount: result.rowCount ?? result.rows.length,
    } satisfies QueryResult<R>;
  };

  // One dedicated session holds every LISTEN. Concurrent first calls share it, and when
  // it is lost (server restart, terminated backend) the channels are listened to again
  // on a new one, so subscribers keep their notifications and the process does not crash.
  let listener: Promise<pg.PoolClient> | undefined;
  let closed = false;
  const channels = new Map<string, Channel>();
  // The LISTEN session's epoch (see SqlDatabase.syncNotifications): bumped when the
  // session is lost and again when every channel is listened to on a new one; `listening`
  // is true only in between, while notifications are surely arriving.
  let listenEpoch = 0;
  let listening = false;

  const listenerClient = (): Promise<pg.PoolClient> => {
    listener ??= pool.connect().then(
      (client) => {
        client.on('notification', (message) => {
          for (const handler of channels.get(message.channel)?.handlers ?? [])
            handler(message.payload ?? '');
        });
        client.on('error', (error) => {
          // After close() the session is back in the pool (and the pool ending): a late
          // error (a terminated backend) is no reason to release it again.
          if (closed) return;
          options.logger?.warn({ err: error }, 'PostgreSQL LISTEN session lost; listening again');
          listener = undefined;
          listenEpoch += 1;
          listening = false;
          client.release(error);
          void relisten();
        });
        return client;
      },
      (error: unknown) => {
        listener = undefined;
        throw error;
      },
    );
    return listener;
  };

  const relisten = async (): Promise<void> => {
    if (closed || channels.size === 0) return;
    try {
      const client = await listenerClient();
      for (const channel of channels.keys()) await client.query(`LISTEN ${channel}`);
      if (listener === undefined || (await listener) !== client) return; // lost again meanwhile
      listenEpoch += 1;
      listening = true;
    } catch (error) {
      options.logger?.warn({ err: error }, 'PostgreSQL LISTEN failed; retrying in 1 s');
      setTimeout(() => void relisten(), 1000).unref();
    }
  };

  /** Registers a channel and issues its LISTEN; a failed LISTEN unregisters it. */
  const subscribe = async (channel: string): Promise<Channel> => {
    const client = await listenerClient();
    const existing = channels.get(channel);
    if (existing) return existing;
    const ready = client.query(`LISTEN ${channel}`).then(() => {
      // On the first session (never lost) notifications now arrive; on a later one,
      // relisten says so once every channel is listened to again.
      if (listenEpoch === 0 && listener !== undefined) listening = true;
    });
    const created: Channel = { handlers: new Set(), ready };
    channels.set(channel, created);
    ready.catch(() => {
      if (channels.get(channel) === created) channels.delete(channel);
    });
    return created;
  };

  const transaction = async <T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    // A checked-out client has no pool listener: a server that dies mid-transaction
    // ("terminating connection due to unexpected postmaster exit") would otherwise be an
    // unhandled 'error' event that ends the process. The failed query rejects on its own.
    let lost: Error | undefined;
    const onError = (error: Error) => {
      lost = error;
      options.logger?.warn({ err: error }, 'PostgreSQL connection lost in a transaction');
    };
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const result = await fn({
        query: (text, params, options) => run(client, text, params, options),
      });
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.off('error', onError);
      // A broken connection is destroyed instead of going back to the pool.
      client.release(lost);
    }
  };

  return {
    engine: 'postgres',
    supportsConcurrentSessions: true,
    supportsListenNotify: true,
    query: (text, params, options) => run(pool, text, params, options),
    transaction,
    withAdvisoryLock: advisoryLocked(transaction),
    async listen(channel, onNotify): Promise<Unlisten> {
      assertChannelName(channel);
      let entry: Channel;
      do {
        entry = channels.get(channel) ?? (await subscribe(channel));
        await entry.ready;
        // Its last subscriber may have left while LISTEN was answered: subscribe again.
      } while (channels.get(channel) !== entry);
      const subscribed = entry;
      subscribed.handlers.add(onNotify);
      return async () => {
        subscribed.handlers.delete(onNotify);
        if (subscribed.handlers.size === 0 && channels.get(channel) === subscribed) {
          channels.delete(channel);
          await listener
            ?.then((session) => session.query(`UNLISTEN ${channel}`))
            .catch(() => undefined);
        }
      };
    },
    async notify(channel, payload) {
      assertChannelName(channel);
      await pool.query('SELECT pg_notify($1, $2)', [channel, payload]);
    },
    async syncNotifications() {
      const epoch = listenEpoch;
      if (!listening || !listener) throw new Error('no PostgreSQL LISTEN session is up');
      const session = await listener;
      await session.query('SELECT 1');
      if (!listening || listenEpoch !== epoch)
        throw new Error('the PostgreSQL LISTEN session was lost');
      return epoch;
    },
    async ping() {
      await pool.query('SELECT 1');
    },
    async close() {
      closed = true;
      const session = await listener?.catch(() => undefined);
      listener = undefined;
      session?.release();
      await pool.end();
    },
  };
}
