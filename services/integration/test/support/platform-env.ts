/** A validated platform environment for tests: free ports on 127.0.0.1, quick refreshes. */
import { createServer } from 'node:net';
import { loadConfig } from '@platform/core';
import { integrationEnvSchema, type IntegrationEnv } from '../../src/config.js';

/** A port that was free a moment ago (the env schema refuses port 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function platformPorts(): Promise<Record<string, string>> {
  const names = ['PORT', 'RELATIONAL_ADAPTER_PORT', 'CSV_ADAPTER_PORT', 'CONTROL_PLANE_PORT', 'WEBHOOK_ADAPTER_PORT'];
  const ports: Record<string, string> = {};
  for (const name of names) ports[name] = String(await freePort());
  return ports;
}

export async function platformEnv(overrides: Record<string, string | undefined> = {}): Promise<IntegrationEnv> {
  return loadConfig(integrationEnvSchema, {
    HOST: '127.0.0.1',
    ...(await platformPorts()),
    ATTACHMENT_REFRESH_MS: '300',
    LOG_LEVEL: 'silent',
    ...overrides,
  }) as IntegrationEnv;
}
