/** PostgreSQL driver: a `pg` pool; one dedicated client holds LISTEN subscriptions. */
import pg from 'pg';
import type { Logger } from 'pino';
import { ADVISORY_LOCK_SQL, advisoryLockKey, assertChannelName } from '../advisory-key.js';
import type { QueryResult, SqlDatabase, SqlExecutor, Unlisten } from '../sql-database.js';

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

export function createPostgresDatabase(options: PostgresOptions): SqlDatabase {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    statement_timeout: options.statementTimeoutMs ?? 30_000,
  });
  // An idle client losing its connection must not crash the process.
  pool.on('error', (error) => options.logger?.warn({ err: error }, 'idle PostgreSQL client error'));

  const run = async <R>(client: pg.Pool | pg.PoolClient, text: string, params?: readonly unknown[]) => {
    const result = await client.query(text, params as unknown[] | undefined);
    return { rows: result.rows as R[], rowCount: result.rowCount ?? result.rows.length } satisfies QueryResult<R>;
  };

  let listener: pg.PoolClient | undefined;
  const handlers = new Map<string, Set<(payload: string) => void>>();

  const transaction = async <T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const result = await fn({ query: (text, params) => run(client, text, params) });
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  };

  return {
    engine: 'postgres',
    supportsConcurrentSessions: true,
    supportsListenNotify: true,
    query: (text, params) => run(pool, text, params),
    transaction,
    withAdvisoryLock: (key, fn) =>
      transaction(async (tx) => {
        await tx.query(ADVISORY_LOCK_SQL, [advisoryLockKey(key)]);
        return fn(tx);
      }),
    async listen(channel, onNotify): Promise<Unlisten> {
      assertChannelName(channel);
      if (!listener) {
        listener = await pool.connect();
        listener.on('notification', (message) => {
          for (const handler of handlers.get(message.channel) ?? []) handler(message.payload ?? '');
        });
      }
      let set = handlers.get(channel);
      if (!set) {
        handlers.set(channel, (set = new Set()));
        await listener.query(`LISTEN ${channel}`);
      }
      set.add(onNotify);
      return async () => {
        set.delete(onNotify);
        if (set.size === 0 && handlers.get(channel) === set) {
          handlers.delete(channel);
          await listener?.query(`UNLISTEN ${channel}`).catch(() => undefined);
        }
      };
    },
    async notify(channel, payload) {
      assertChannelName(channel);
      await pool.query('SELECT pg_notify($1, $2)', [channel, payload]);
    },
    async ping() {
      await pool.query('SELECT 1');
    },
    async close() {
      listener?.release();
      listener = undefined;
      await pool.end();
    },
  };
}
