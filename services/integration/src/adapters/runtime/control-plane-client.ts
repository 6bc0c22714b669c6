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

/** The attachments of a type, and the version of that list (a digest the control plane gives). */
export interface AttachmentFeed {
  attachments: AttachmentView[];
  version: string;
}

export interface AttachmentSource {
  register(descriptor: AdapterTypeDescriptor): Promise<void>;
  attachments(adapterType: string): Promise<AttachmentView[]>;
  /**
   * Long poll: the feed as soon as its version differs from `knownVersion` (at once when
   * it already does), or the unchanged feed after `waitSeconds`. Sources without it are
   * polled by the runtime on its refresh interval.
   */
  watch?(
    adapterType: string,
    knownVersion: string,
    waitSeconds: number,
    signal?: AbortSignal,
  ): Promise<AttachmentFeed>;
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

export function createControlPlaneClient(
  options: ControlPlaneClientOptions = {},
): AttachmentSource {
  const base = (options.baseUrl ?? 'http://127.0.0.1:8083').replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 5000;
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    waitMs = 0,
    signal?: AbortSignal,
  ) => {
    let response: Response;
    const timeout = AbortSignal.timeout(timeoutMs + waitMs);
    try {
      response = await fetch(`${base}${path}`, {
        method,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
      });
    } catch (error) {
      throw new ControlPlaneError(
        `control plane unreachable at ${base}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    const text = await response.text();
    if (!response.ok)
      throw new ControlPlaneError(
        `control plane ${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`,
      );
    return text ? (JSON.parse(text) as unknown) : undefined;
  };
  return {
    async register(descriptor) {
      await call('PUT', `/adapter-types/${encodeURIComponent(descriptor.type)}`, descriptor);
    },
    async attachments(adapterType) {
      const body = (await call(
        'GET',
        `/attachments?adapterType=${encodeURIComponent(adapterType)}`,
      )) as {
        attachments?: AttachmentView[];
      };
      if (!Array.isArray(body?.attachments))
        throw new ControlPlaneError('attachments feed without an attachments array');
      return body.attachments;
    },
    async watch(adapterType, knownVersion, waitSeconds, signal) {
      const query = new URLSearchParams({
        adapterType,
        knownVersion,
        waitSeconds: String(waitSeconds),
      });
      const body = (await call(
        'GET',
        `/attachments?${query}`,
        undefined,
        waitSeconds * 1000,
        signal,
      )) as Partial<AttachmentFeed>;
      if (!Array.isArray(body?.attachments) || typeof body.version !== 'string') {
        throw new ControlPlaneError('attachments feed without an attachments array and a version');
      }
      return { attachments: body.attachments, version: body.version };
    },
  };
}
