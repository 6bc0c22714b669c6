/**
 * Secrets in attachment configs are write-only (issue 15): every answer of the control
 * plane's attachment API shows them masked. Only the adapters' feed (`GET /attachments`,
 * `operate`) carries them, as adapters need them to deliver.
 */
import type { Attachment } from './attachment-store.js';

export const MASK = '********';

/** Config fields holding credentials: tokens, secrets, passwords, keys, connection URLs with a password. */
const SECRET_FIELD = /token|secret|password|passwd|api[_-]?key|credential|private[_-]?key/i;

function maskValue(key: string, value: unknown): unknown {
  if (SECRET_FIELD.test(key) && typeof value === 'string' && value.length > 0) return MASK;
  if (Array.isArray(value)) return value.map((item) => maskValue('', item));
  if (value && typeof value === 'object') return maskConfig(value as Record<string, unknown>);
  return value;
}

export function maskConfig(config: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(config).map(([key, value]) => [key, maskValue(key, value)]),
  );
}

export function maskAttachment<T extends Pick<Attachment, 'config'>>(attachment: T): T {
  return { ...attachment, config: maskConfig(attachment.config) };
}
