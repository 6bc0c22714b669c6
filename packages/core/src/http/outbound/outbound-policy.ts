/**
 * The outbound guard of one service process, from its environment: `ALLOWED_OUTBOUND`
 * when set; else, in local mode (no API keys: the service answers only this machine),
 * loopback is allowed so that local mirrors, LLMs and webhook receivers work, and with
 * API keys nothing forbidden is.
 */
import type { CoreEnv } from '../../config/core-env.js';
import { createOutboundGuard, type OutboundGuard, type Resolver } from './outbound-guard.js';

export const LOCAL_OUTBOUND: readonly string[] = ['127.0.0.0/8', '::1'];

export type OutboundEnv = Pick<CoreEnv, 'ALLOWED_OUTBOUND' | 'API_KEYS' | 'API_KEYS_FILE'>;

/** What `ALLOWED_OUTBOUND` amounts to for this environment. */
export function allowedOutbound(env: OutboundEnv): readonly string[] {
  if (env.ALLOWED_OUTBOUND === 'none') return [];
  if (env.ALLOWED_OUTBOUND !== undefined) return env.ALLOWED_OUTBOUND;
  const keyed = env.API_KEYS !== undefined || env.API_KEYS_FILE !== undefined;
  return keyed ? [] : LOCAL_OUTBOUND;
}

export function outboundGuardFromEnv(env: OutboundEnv, resolve?: Resolver): OutboundGuard {
  return createOutboundGuard({ allowed: allowedOutbound(env), ...(resolve ? { resolve } : {}) });
}
