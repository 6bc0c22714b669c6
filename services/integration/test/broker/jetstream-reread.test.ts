/**
 * JetStream only. The re-read livelock of the workers-mode bench (28 Nov 2026 00:36 UTC,
 * load 24): the webhook thread's consumer logged "a delivery never reached this worker"
 * 30,478 times, each re-made durable's first delivery (`deliveries` [2,2], `lastDelivery`
 * 0) taken by someone else. The someone else was a second worker of the same consumer on
 * the same durable: `addTopics` ran a refresh of its own beside the periodic one (or
 * another `addTopics`), both found the new topic unassigned across their awaits and both
 * assigned it, the second state replacing the first in the map while the first's worker
 * went on pulling. The two split the deliveries; the mapped one saw a hole and re-made
 * the durable, the orphan took delivery 1 of the new one (a batch starting at 1 reads as
 * a durable made again), and so on forever.
 *
 * Whatever takes the deliveries, re-reads with no batch acked between them back off
 * (`rereadBackoffMs`): made here by another client that keeps pulls waiting on the
 * group's durable and never acks, so every re-made durable's first delivery is its.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { skipReason } from '@platform/testing';
import { pino } from 'pino';
import { rereadBackoffMs } from '../../src/broker/jetstream/jetstream-consumer.js';
import {
  BROKER_DRIVERS,
  openJetStreamBeside,
  waitFor,
  type JetStreamBeside,
} from '../helpers/broker-drivers.js';

const missing = await BROKER_DRIVERS.find((d) => d.name === 'jetstream')!.missing();

const REREAD = 'a delivery never reached this worker (an abandoned pull); re-reading the partition';

describe(
  'jetstream consumer: re-reads after a lost delivery',
  { skip: skipReason(`${missing} (jetstream re-read)`, !missing) },
  () => {
    const warnings: Array<{ msg: string; at: number } & Record<string, unknown>> = [];
    let js: JetStreamBeside;
    before(async () => {
      const logger = pino(
        { level: 'warn' },
        {
          write: (line: string) => {
            warnings.push({ ...(JSON.parse(line) as { msg: string }), at: Date.now() });
          },
        },
      );
      js = await openJetStreamBeside(logger);
    });
    after(async () => js?.close());

    it('assigns a topic added twice at once to one worker, which reads it without re-reads', async () => {
      const { open, nc } = js;
      const { topic, groupId, stream, durable } = await js.topic('twice');
      // Every pull of the durable, by the inbox it answers to: one worker, one inbox.
      const inboxes = new Set<string>();
      const watch = nc.subscribe(`$JS.API.CONSUMER.MSG.NEXT.${stream}.${durable}`, {
        callback: (_err, msg) => {
          if (msg.reply) inboxes.add(msg.reply);
        },
      });
      await nc.flush();
      const seen: string[] = [];
      const consumer = await open.broker.subscribeBatches(
        { groupId, topics: [], maxBatch: 5 },
        async (records) => {
          for (const r of records) seen.push(r.value.toString());
        },
      );
      const from = warnings.length;
      try {
        // As the adapter runtime's `addTopics` does beside the periodic refresh.
        await Promise.all([consumer.addTopics!([topic]), consumer.addTopics!([topic])]);
        const values = Array.from({ length: 40 }, (_, i) => `r${i}`);
        for (const value of values) await open.broker.publish(topic, 'k', value);
        await waitFor(
          'every record handled',
          () => values.every((v) => seen.includes(v)),
          20_000,
        ).catch((error: Error) => {
          const rereads = warnings.slice(from).filter((w) => w.msg === REREAD);
          const last = rereads.at(-1);
          throw new Error(
            `${error.message}: ${seen.length} handled, ${rereads.length} re-reads (last: ` +
              `lastDelivery ${String(last?.lastDelivery)}, deliveries ${JSON.stringify(last?.deliveries)})`,
          );
        });
      } finally {
        await consumer.stop();
        watch.unsubscribe();
      }
      const rereads = warnings.slice(from).filter((w) => w.msg === REREAD);
      assert.equal(rereads.length, 0, `no re-read (${rereads.length} logged)`);
      assert.equal(inboxes.size, 1, `one worker pulled the durable (${inboxes.size} inboxes)`);
      assert.equal(consumer.assignments().length, 1);
    });

    /**
     * One run of the thief: its re-reads, logged, once four came in a row and every record
     * was then handled; else (the worker read every record first, or 10 s passed without
     * four in a row) what went wrong. Re-reads come only from a mixed race: the thief's
     * pulls (every 2 ms) must take some of a re-made durable's first deliveries and the
     * worker's pull the rest (a batch after a hole). Taking all of them or none makes no
     * re-read, and a CI run of 29 Nov 2026 saw none in 30 s. Such a run shows nothing
     * about the back-off, so the test runs the thief again on a new topic, at most three
     * times; what a run logged is checked in full.
     */
    async function thiefRun(): Promise<typeof warnings | string> {
      const { open, nc } = js;
      const { topic, groupId, stream, durable } = await js.topic('thief');
      const values = Array.from({ length: 20 }, (_, i) => `r${i}`);
      for (const value of values) await open.broker.publish(topic, 'k', value);
      // The thief: a pull (one message, 100 ms) every 2 ms, answered to an inbox that takes
      // what comes and never acks; its pulls wait on each re-made durable beside the worker's.
      const inbox = nc.subscribe(`_THIEF.${randomBytes(6).toString('hex')}`, {
        callback: () => undefined,
      });
      const pull = JSON.stringify({ batch: 1, expires: 100_000_000 });
      const thief = setInterval(
        () =>
          nc.publish(`$JS.API.CONSUMER.MSG.NEXT.${stream}.${durable}`, pull, {
            reply: inbox.getSubject(),
          }),
        2,
      );
      const seen: string[] = [];
      const from = warnings.length;
      const rereads = () =>
        warnings.slice(from).filter((w) => w.msg === REREAD && w.groupId === groupId);
      const allSeen = () => values.every((v) => seen.includes(v));
      const consumer = await open.broker.subscribeBatches(
        { groupId, topics: [topic], maxBatch: 5 },
        async (records) => {
          for (const r of records) seen.push(r.value.toString());
        },
      );
      try {
        const fourInARow = () => rereads().some((w) => Number(w.rereadsInARow) >= 4);
        const outcome = await waitFor(
          'four re-reads in a row',
          () => fourInARow() || allSeen(),
          10_000,
        )
          .then(() => (fourInARow() ? undefined : 'the worker read every record first'))
          .catch((error: Error) => error.message);
        if (outcome)
          return `${outcome}: ${seen.length} of ${values.length} handled, re-reads ${JSON.stringify(rereads().slice(-3))}`;
        clearInterval(thief);
        inbox.unsubscribe();
        // Without the thief the next re-read gets every record (the longest wait is 5 s).
        await waitFor('every record handled', allSeen, 30_000);
        return rereads();
      } finally {
        clearInterval(thief);
        if (!inbox.isClosed()) inbox.unsubscribe();
        await consumer.stop();
      }
    }

    /** The re-reads of the first of three thief runs that makes four in a row. */
    async function firstTellingRun(): Promise<typeof warnings> {
      const failures: string[] = [];
      for (;;) {
        const run = await thiefRun();
        if (typeof run !== 'string') return run;
        if (failures.push(run) === 3) assert.fail(`three thief runs: ${failures.join('; ')}`);
      }
    }

    it('backs off between re-reads of a partition that keeps losing its first delivery, and recovers', async () => {
      const logged = await firstTellingRun();
      // Each re-read in a row waited its back-off after the one before it (logged once done).
      let pairs = 0;
      for (let i = 1; i < logged.length; i += 1) {
        const n = Number(logged[i - 1]!.rereadsInARow);
        if (Number(logged[i]!.rereadsInARow) !== n + 1) continue;
        pairs += 1;
        assert.equal(logged[i]!.backoffMs, rereadBackoffMs(n + 1));
        const apart = logged[i]!.at - logged[i - 1]!.at;
        // 1 ms: a timer and Date.now() round their milliseconds apart.
        assert.ok(
          apart >= rereadBackoffMs(n + 1) - 1,
          `re-read ${n + 1} in a row ${apart} ms after the one before (back-off ${rereadBackoffMs(n + 1)} ms)`,
        );
      }
      assert.ok(pairs >= 3, `${pairs} re-reads in a row checked`);
      assert.equal(logged[0]!.rereadsInARow, 1);
      assert.equal(logged[0]!.backoffMs, 0, 'the first re-read goes at once');
    });
  },
);
