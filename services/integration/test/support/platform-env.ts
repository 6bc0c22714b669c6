/** Platform environments for tests: 127.0.0.1, quick refreshes, ports chosen by the OS. */
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

/**
 * For `startPlatform` in this process: every port 0 (the OS picks, no race with other
 * test files), set after validation since the env schema itself refuses port 0.
 */
export function platformEnv(overrides: Record<string, string | undefined> = {}): IntegrationEnv {
  const env = loadConfig(integrationEnvSchema, { HOST: '127.0.0.1', ATTACHMENT_REFRESH_MS: '300', LOG_LEVEL: 'silent', ...overrides });
  return { ...env, PORT: 0, RELATIONAL_ADAPTER_PORT: 0, CSV_ADAPTER_PORT: 0, CONTROL_PLANE_PORT: 0, WEBHOOK_ADAPTER_PORT: 0 };
}
