/**
 * Headless Chromium for page tests: Debian's `/usr/bin/chromium` (or `CHROMIUM_PATH`)
 * driven by playwright-core, with the flags this machine needs (no sandbox as root, and
 * no background networking, which the closed network would refuse).
 */
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { skipReason } from './engines.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** A loud skip reason when Chromium is not installed, else undefined. */
export function chromiumSkipReason(): string | undefined {
  return skipReason(`Chromium at ${CHROMIUM_PATH}`, existsSync(CHROMIUM_PATH));
}

export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
  });
}
