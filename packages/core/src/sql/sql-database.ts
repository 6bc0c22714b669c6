/**
 * SQL access: one small interface over PostgreSQL (`pg`) and PGlite (PostgreSQL in WASM,
 * embedded under DATA_DIR). Both speak the same SQL, so services write one dialect;
 * what differs between engines is stated as capability flags, not engine names.
 */
export interface QueryResult<R> {
  rows: R[];
  /** Rows affected (INSERT/UPDATE/DELETE) or returned (SELECT). */
  rowCount: number;
}

/** Anything that runs parameterised SQL: the database itself or an open transaction. */
export interface SqlExecutor {
  /**
   * Parameters are `$1, $2, …`; values are never interpolated into the text. Values come
   * back the same on every engine for json and jsonb: parsed (object, array, string,
   * number, boolean or null), never JSON text. Pass a json/jsonb parameter as JSON text
   * (`JSON.stringify(value)`, with `$n::jsonb`): `pg` would send a JS array as a
   * PostgreSQL array.
   */
  query<R = Record<string, unknown>>(
    text: string,
    params?: readonly unknown[],
    options?: QueryOptions,
  ): Promise<QueryResult<R>>;
}

export interface QueryOptions {
  /**
   * Keeps the statement prepared under this name in each session that runs it
   * (PostgreSQL), so a statement run many times a second is parsed and planned once a
   * session, not every time (after five runs PostgreSQL may keep one generic plan).
   * One name, one text, process-wide. Engines without named statements ignore it. Not
   * for a statement that joins a table by key: a generic plan made while the table was
   * small (sequential scans) is kept as it grows.
   */
  prepareAs?: string;
}

export type Unlisten = () => Promise<void>;

export interface SqlDatabase extends SqlExecutor {
  /** `postgres` or `pglite`: for health output and logs, never for branching. */
  readonly engine: string;
  /**
   * True when separate sessions run at once (a pool). PGlite has one session: its
   * transactions run one after another, which also makes advisory locks trivially held.
   */
  readonly supportsConcurrentSessions: boolean;
  /** LISTEN/NOTIFY is available (both engines today; a future one may lack it). */
  readonly supportsListenNotify: boolean;
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` in a transaction holding a transaction-scoped advisory lock derived from
   * `key` (a SHA-256 of the string), so callers with the same key run one at a time.
   */
  withAdvisoryLock<T>(key: string, fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** Subscribes to a NOTIFY channel; the returned function unsubscribes. */
  listen(channel: string, onNotify: (payload: string) => void): Promise<Unlisten>;
  notify(channel: string, payload: string): Promise<void>;
  /**
   * Resolves once every notification of a transaction that committed before this call
   * has been handed to this process's listeners, with the LISTEN session's epoch: a
   * number that changes whenever that session was lost (notifications may have been
   * missed in between), so a cache fed by notifications compares it with the one it was
   * filled under. Rejects while no LISTEN session is up. On PostgreSQL one round trip on
   * the LISTEN session: the server sends the notifications pending for a session before
   * it answers its next query (each committing backend signals the listeners before its
   * own client is told of the commit, and a listening backend processes a pending signal
   * before its ReadyForQuery). On PGlite there is nothing to wait for: its one session
   * delivers a notification before its next statement runs.
   */
  syncNotifications(): Promise<number>;
  /** Throws when the database cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
