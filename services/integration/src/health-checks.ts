/** The `/health` dependencies every integration HTTP part reports: its database and broker. */
import type { HealthCheck, SqlDatabase } from '@platform/core';
import type { Broker } from './broker/broker.js';

export function platformHealthChecks(db: SqlDatabase, broker: Broker): Record<string, HealthCheck> {
  return {
    database: async () => {
      await db.ping();
      return db.engine;
    },
    // The driver, and what an acknowledged publish survives on its engine (issue 21).
    broker: async () => {
      await broker.ping();
      const { engine, processCrash, powerLoss, detail } = broker.durability();
      return {
        driver: broker.driver,
        engine,
        acknowledgedPublishSurvives: { processCrash, powerLoss },
        detail,
      };
    },
  };
}
