/**
 * Makes a broker lose records it acknowledged, as a power loss, a purge or an operator
 * would: the SQL log's rows are deleted; on JetStream the messages are deleted from (or
 * the whole partition's stream purged on) the server. For the outbox reconciler's tests.
 */
import type { SqlDatabase } from '@platform/core';
import { natsUrlForTests } from '@platform/testing';
import { connect } from 'nats';
import type { StreamDescription } from '../../src/broker/jetstream/naming.js';

export async function loseRecords(
  driver: string,
  brokerDb: SqlDatabase,
  topic: string,
  partition: number,
  offsets: number[] | 'all',
): Promise<void> {
  if (driver !== 'jetstream') {
    await brokerDb.query(
      `DELETE FROM broker_messages WHERE topic = $1 AND partition = $2
       AND ($3::bigint[] IS NULL OR "offset" = ANY($3::bigint[]))`,
      [topic, partition, offsets === 'all' ? null : offsets],
    );
    return;
  }
  const nc = await connect({ servers: (await natsUrlForTests())!, timeout: 2000 });
  try {
    const jsm = await nc.jetstreamManager();
    for await (const info of jsm.streams.list()) {
      let described: StreamDescription;
      try {
        described = JSON.parse(info.config.description ?? '') as StreamDescription;
      } catch {
        continue;
      }
      if (described.topic !== topic || described.partition !== partition) continue;
      if (offsets === 'all') await jsm.streams.purge(info.config.name);
      else
        for (const offset of offsets) await jsm.streams.deleteMessage(info.config.name, offset + 1);
    }
  } finally {
    await nc.close();
  }
}
