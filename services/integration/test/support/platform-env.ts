/** Platform environments for tests: 127.0.0.1, quick refreshes, ports chosen by the OS. */
import { freePort } from '@platform/testing';
import { loadConfig } from '@platform/core';
import { integrationEnvSchema, type IntegrationEnv } from '../../src/config.js';

export async function platformPorts(): Promise<Record<string, string>> {
  const names = [
    'PORT',
    'RELATIONAL_ADAPTER_PORT',
    'CSV_ADAPTER_PORT',
    'CONTROL_PLANE_PORT',
    'WEBHOOK_ADAPTER_PORT',
  ];
  const ports: Record<string, string> = {};
  for (const name of names) ports[name] = String(await freePort());
  return ports;
}

/** For `startPlatform` in this process: every port 0 (the OS picks, no race with other test files). */
export function platformEnv(overrides: Record<string, string | undefined> = {}): IntegrationEnv {
  const ports = {
    PORT: '0',
    RELATIONAL_ADAPTER_PORT: '0',
    CSV_ADAPTER_PORT: '0',
    CONTROL_PLANE_PORT: '0',
    WEBHOOK_ADAPTER_PORT: '0',
  };
  return loadConfig(integrationEnvSchema, {
    HOST: '127.0.0.1',
    ATTACHMENT_REFRESH_MS: '300',
    LOG_LEVEL: 'silent',
    ...ports,
    ...overrides,
  });
}
