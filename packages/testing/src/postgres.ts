/**
 * PostgreSQL for tests: a real server on this machine, with a fresh database per test
 * file so suites never see each other's rows.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

function adminUrl(): string {
  return process.env.TEST_POSTGRES_URL ?? DEFAULT_ADMIN_URL;
}

/** The admin URL when a server answers within a second, else undefined. */
export async function postgresUrlForTests(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: adminUrl(), connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return adminUrl();
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/**
 * Creates an empty database with a random name on the server of `serverUrl` (the test
 * server by default); `drop()` removes it even with open connections.
 */
export async function createTestDatabase(
  prefix = 'test',
  serverUrl = adminUrl(),
): Promise<TestDatabase> {
  const name = `${prefix.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 2000 });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 2000 });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
