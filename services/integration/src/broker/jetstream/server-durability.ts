/**
 * What an acknowledged JetStream publish survives, from the server's version (client
 * INFO) and, where a monitoring URL is given, its sync setting (`/varz`, 2.10+).
 * JetStream acknowledges once the write is in the page cache and fsyncs every
 * `sync_interval` (2 minutes by default); only `sync_interval: always` (2.10+) makes an
 * acknowledged publish survive a power loss. Debian's 2.9.10 cannot be told to.
 */
import type { NatsConnection } from 'nats';
import type { BrokerDurability } from '../broker.js';

const versionAtLeast = (version: string, major: number, minor: number): boolean => {
  const [a = 0, b = 0] = version.split('.').map((part) => Number.parseInt(part, 10));
  return a > major || (a === major && b >= minor);
};

interface Varz {
  jetstream?: { config?: { sync_interval?: number; sync_always?: boolean } };
}

async function readVarz(monitorUrl: string): Promise<Varz | undefined> {
  try {
    const answer = await fetch(new URL('/varz', monitorUrl), { signal: AbortSignal.timeout(2000) });
    return answer.ok ? ((await answer.json()) as Varz) : undefined;
  } catch {
    return undefined;
  }
}

export async function readDurability(
  nc: NatsConnection,
  monitorUrl: string | undefined,
): Promise<BrokerDurability> {
  const version = nc.info?.version ?? 'unknown';
  const engine = `nats-server ${version}`;
  const lazy = 'JetStream acknowledges before it fsyncs';
  if (!versionAtLeast(version, 2, 10)) {
    return {
      engine,
      processCrash: true,
      powerLoss: false,
      detail: `${lazy} (every 2 minutes); this version has no sync_interval setting (2.10+), so an acknowledged publish may be lost in a power loss`,
    };
  }
  const config = monitorUrl ? (await readVarz(monitorUrl))?.jetstream?.config : undefined;
  if (config?.sync_always) {
    return {
      engine,
      processCrash: true,
      powerLoss: true,
      detail: 'sync_interval: always — every acknowledged publish was fsynced',
    };
  }
  return {
    engine,
    processCrash: true,
    powerLoss: false,
    detail: config
      ? `${lazy} (sync_interval ${config.sync_interval ? `${config.sync_interval / 1e9} s` : 'default, 2 minutes'}); set sync_interval: always to survive a power loss`
      : `${lazy} unless started with sync_interval: always; the setting is not reported to clients (give NATS_MONITOR_URL to read it), so a power loss is assumed to lose the last 2 minutes`,
  };
}
