/**
 * How both drivers hand a partition's records to a subscriber. A driver reads up to
 * `maxBatch` records of one partition in offset order and asks a `DeliveryHandler` how
 * many of them, from the first, may be committed; the rest (if any) are delivered again,
 * after a back-off, before any later record of the partition.
 *
 * - `wholeBatch`: the batch subscriber (`subscribeBatches`) — all or nothing: a handler
 *   that throws commits none of the batch, which comes back whole.
 * - `oneByOne`: the record subscriber (`subscribe`) — records one at a time, each
 *   committed once its handler resolved; the first that throws ends the batch there.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { BatchHandler, BrokerRecord, RecordHandler } from './broker.js';

export interface DeliveryResult {
  /** Records, from the first, that may be committed. */
  handled: number;
  /** Why the rest was not handled (undefined: all handled, or interrupted). */
  error?: unknown;
}

/** `interrupted()` is true once the consumer is paused, stopping or its position moved. */
export type DeliveryHandler = (
  batch: BrokerRecord[],
  interrupted: () => boolean,
) => Promise<DeliveryResult>;

/** The SQL log's batch (JetStream's is `DEFAULT_JETSTREAM_MAX_BATCH`). */
export const DEFAULT_MAX_BATCH = 200;

export function wholeBatch(handler: BatchHandler): DeliveryHandler {
  return async (batch) => {
    // PGlite answers without going through the event loop: yield once per batch so a
    // backlog does not starve the process's timers and sockets.
    await nextTurn();
    try {
      await handler(batch);
      return { handled: batch.length };
    } catch (error) {
      return { handled: 0, error };
    }
  };
}

export function oneByOne(handler: RecordHandler): DeliveryHandler {
  return async (batch, interrupted) => {
    let handled = 0;
    for (const record of batch) {
      await nextTurn();
      if (interrupted()) break;
      try {
        await handler(record);
      } catch (error) {
        return { handled, error };
      }
      handled += 1;
    }
    return { handled };
  };
}
