/**
 * An intake write whose answer was lost (issue 21): the connection to the database broke
 * after the statement was sent, so it may have committed. Answering 503 then would be a
 * promise the record was not stored that the database may break (the relay would publish
 * it later). Instead the outbox is asked, on a fresh connection, which of the events it
 * holds: those it holds are accepted and go on as if the statement had answered; if it
 * holds none the 503 stands. A database still unreachable is asked again until
 * `IN_DOUBT_WAIT_MS` (by then the client's own timeout has usually ended the request,
 * which says "unknown" honestly); past it the 503 stands (chaos/FINDINGS.md). The asking
 * is core's (`askAfterLostAnswer`, shared with render's admission).
 */
import {
  askAfterLostAnswer,
  IN_DOUBT_WAIT_MS,
  mayHaveCommitted,
  type SqlDatabase,
} from '@platform/core';
import { queuedRevisions } from './outbox.js';

export { IN_DOUBT_WAIT_MS };

/**
 * Rethrows `error` unless it left the write in doubt; then the revisions the outbox holds
 * for `recordIds` (one statement wrote them all, so all or none), or `error` again when
 * it holds none or could not be asked in time.
 */
export async function revisionsAfterLostAnswer(
  db: SqlDatabase,
  error: unknown,
  recordIds: string[],
  waitMs = IN_DOUBT_WAIT_MS,
): Promise<Map<string, number>> {
  if (!mayHaveCommitted(error) || recordIds.length === 0) throw error;
  const answer = await askAfterLostAnswer(async () => {
    const held = await queuedRevisions(db, recordIds);
    return held.size === 0 ? undefined : held;
  }, waitMs);
  if (answer.stored === true) return answer.value;
  throw error;
}
