/** The `/health` dependencies every integration HTTP part reports: its database and broker. */
import type { HealthCheck, SqlDatabase } from '@platform/core';
import type { Broker } from './broker/broker.js';

export function platformHealthChecks(db: SqlDatabase, broker: Broker): Record<string, HealthCheck> {
  return {
    database: async () => {
      await db.ping();
      return db.engine;
    },
    broker: async () => {
      await broker.ping();
      return broker.driver;
    },
  };
}
