/**
 * JetStream layout: one stream per topic partition, so a partition's offset is its
 * stream sequence minus one and a durable consumer per (group, partition) with one
 * message in flight gives keyed ordering. Names derive from the topic (sanitised, plus a
 * short hash so `a.b` and `a_b` never collide) under a configurable prefix.
 */
import { createHash } from 'node:crypto';

/** JetStream's de-duplication header (what `js.publish` sets for `msgID`). */
export const MSG_ID_HEADER = 'Nats-Msg-Id';

const TOPIC_PATTERN = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

export function assertTopicName(topic: string): void {
  if (!TOPIC_PATTERN.test(topic) || topic.length > 200) {
    throw new RangeError(
      `invalid topic name: ${JSON.stringify(topic)} (letters, digits, _, - and dots)`,
    );
  }
}

const shortHash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 8);
const sanitize = (text: string) => text.replace(/[^A-Za-z0-9_-]/g, '_');

export function streamName(prefix: string, topic: string, partition: number): string {
  return `${prefix}_${sanitize(topic)}_${shortHash(topic)}_P${partition}`;
}

export function subjectFor(prefix: string, topic: string, partition: number): string {
  return `${prefix.toLowerCase()}.${topic}.p${partition}`;
}

export function durableName(groupId: string): string {
  return `G_${sanitize(groupId)}_${shortHash(groupId)}`;
}

/** Stored as the stream's description so `listTopics` can rebuild the topic table. */
export interface StreamDescription {
  topic: string;
  partition: number;
  partitions: number;
}
