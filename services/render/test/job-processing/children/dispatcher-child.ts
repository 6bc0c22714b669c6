/** Kill-test child: dispatches outbox events, printing each enqueue, until killed. */
import { createDispatcher } from '../../../src/dispatcher/dispatcher.js';
import { childEngines } from './child-engines.js';

const { db, queue, logger } = await childEngines();
const dispatcher = createDispatcher(db, queue, logger, {
  id: `child-${process.pid}`,
  batchSize: 3,
  claimSeconds: 1,
  onStep: (step, id) => {
    if (step === 'enqueued') process.stdout.write(`enqueued ${id}\n`);
  },
});
process.stdout.write('ready\n');
for (;;) await dispatcher.runOnce();
