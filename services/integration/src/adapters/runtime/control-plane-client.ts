/**
 * How an adapter talks to the control plane: registers its type descriptor (PUT, also the
 * liveness heartbeat) and reads its attachments. HTTP with bounded timeouts.
 */
import type { AttachmentView } from './attachment.js';

export interface AdapterTypeDescriptor {
  type: string;
  description: string;
  /** JSON Schema of an attachment's config; every property has a `description`. */
  configSchema: Record<string, unknown>;
  consumerGroup: string;
  adminUrl?: string | undefined;
}

export interface AttachmentSource {
  register(descriptor: AdapterTypeDescriptor): Promise<void>;
  attachments(adapterType: string): Promise<AttachmentView[]>;
}

export interface ControlPlaneClientOptions {
  /** @defaultValue "http://127.0.0.1:8083" */
  baseUrl?: string;
  /** Per request, connect and read together. @defaultValue 5000 */
  timeoutMs?: number;
  /** Sent as `Authorization: Bearer` when the platform runs with API keys. */
  apiKey?: string | undefined;
}

export class ControlPlaneError extends Error {
  override name = 'ControlPlaneError';
}

export function createControlPlaneClient(options: ControlPlaneClientOptions = {}): AttachmentSource {
  const base = (options.baseUrl ?? 'http://127.0.0.1:8083').replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 5000;
  const call = async (method: string, path: string, body?: unknown) => {
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        method,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new ControlPlaneError(`control plane unreachable at ${base}: ${(error as Error).message}`, { cause: error });
    }
    const text = await response.text();
    if (!response.ok) throw new ControlPlaneError(`control plane ${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
    return text ? (JSON.parse(text) as unknown) : undefined;
  };
  return {
    async register(descriptor) {
      await call('PUT', `/adapter-types/${encodeURIComponent(descriptor.type)}`, descriptor);
    },
    async attachments(adapterType) {
      const body = (await call('GET', `/attachments?adapterType=${encodeURIComponent(adapterType)}`)) as {
        attachments?: AttachmentView[];
      };
      if (!Array.isArray(body?.attachments)) throw new ControlPlaneError('attachments feed without an attachments array');
      return body.attachments;
    },
  };
}
