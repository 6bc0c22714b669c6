/**
 * Broker retention per topic (issue 11 item 7), read from `BROKER_RETENTION`:
 *
 *   <topic or prefix*>=<max age>/<max bytes>[/drop-unread], …
 *
 * e.g. `*=7d/1GiB,platform.dlq=30d/-,interns.*=24h/256MiB/drop-unread`. Ages take
 * ms, s, m, h or d; sizes B, KiB, MiB, GiB (or KB, MB, GB); `-` is no limit. An entry
 * naming the topic wins, else the longest matching prefix (`*` alone matches every
 * topic). Without an entry a topic keeps everything (the default: replay and seek need it).
 *
 * `maxBytes` bounds the whole topic: each partition keeps `maxBytes / partitions`.
 * `dropUnread` lets the SQL log drop records a consumer group has not committed yet;
 * without it the SQL log never prunes past the slowest group's committed offset.
 * JetStream's limits apply whatever consumers have read (the server enforces them).
 */
export interface TopicRetention {
  /** Records older than this are dropped. */
  maxAgeMs?: number;
  /** The topic keeps at most this much (values and headers), its oldest records dropped first. */
  maxBytes?: number;
  /** SQL log: prune past the slowest consumer group's committed offset. @defaultValue false */
  dropUnread?: boolean;
}

export interface RetentionEntry {
  pattern: string;
  retention: TopicRetention;
}

const AGE_UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};
const SIZE_UNITS: Record<string, number> = {
  b: 1,
  kb: 1000,
  mb: 1000 ** 2,
  gb: 1000 ** 3,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};

function amount(text: string, units: Record<string, number>, what: string): number | undefined {
  if (text === '-' || text === '') return undefined;
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  const unit = match ? units[(match[2] || Object.keys(units)[0]!).toLowerCase()] : undefined;
  if (!match || unit === undefined)
    throw new RangeError(
      `${what} ${JSON.stringify(text)}: a number with one of ${Object.keys(units).join(', ')}`,
    );
  const value = Math.round(Number(match[1]) * unit);
  if (value <= 0) throw new RangeError(`${what} ${JSON.stringify(text)} must be positive`);
  return value;
}

/** Parses `BROKER_RETENTION`; throws a RangeError naming the bad entry. */
export function parseRetention(text: string | undefined): RetentionEntry[] {
  if (!text?.trim()) return [];
  return text.split(',').map((raw) => {
    const entry = raw.trim();
    const at = entry.indexOf('=');
    if (at <= 0) throw new RangeError(`retention entry ${JSON.stringify(entry)}: topic=age/size`);
    const pattern = entry.slice(0, at).trim();
    const [age = '', size = '-', flag, ...rest] = entry.slice(at + 1).split('/');
    if (rest.length > 0 || (flag !== undefined && flag.trim() !== 'drop-unread'))
      throw new RangeError(
        `retention entry ${JSON.stringify(entry)}: topic=age/size or topic=age/size/drop-unread`,
      );
    const retention: TopicRetention = {};
    const maxAgeMs = amount(age, AGE_UNITS, 'retention age');
    const maxBytes = amount(size, SIZE_UNITS, 'retention size');
    if (maxAgeMs !== undefined) retention.maxAgeMs = maxAgeMs;
    if (maxBytes !== undefined) retention.maxBytes = maxBytes;
    if (flag !== undefined) retention.dropUnread = true;
    return { pattern, retention };
  });
}

/** The retention of a topic: an exact entry, else the longest matching prefix, else none. */
export function retentionFor(entries: readonly RetentionEntry[], topic: string): TopicRetention {
  const exact = entries.find((e) => e.pattern === topic);
  if (exact) return exact.retention;
  let best: RetentionEntry | undefined;
  for (const entry of entries) {
    if (!entry.pattern.endsWith('*')) continue;
    const prefix = entry.pattern.slice(0, -1);
    if (topic.startsWith(prefix) && (!best || prefix.length > best.pattern.length - 1))
      best = entry;
  }
  return best?.retention ?? {};
}
