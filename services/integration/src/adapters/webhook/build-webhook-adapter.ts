/** The webhook adapter: consumer group `adapter.webhook`; delivered-recordId files under `stateDir`. */
import { buildAdapter, type Adapter, type AdapterDeps } from '../runtime/build-adapter.js';
import { createWebhookTarget } from './webhook-target.js';

export interface WebhookAdapterDeps extends AdapterDeps {
  /** Folder for the idempotency state, e.g. `${DATA_DIR}/integration/webhook`. */
  stateDir: string;
  /** Default connect timeout for attachments that set none. @defaultValue 3000 */
  connectTimeoutMs?: number;
  /** Default read timeout for attachments that set none. @defaultValue 10000 */
  readTimeoutMs?: number;
  /** Target addresses allowed although loopback/private/link-local (`allowedOutbound(env)`). @defaultValue none */
  allowedOutbound?: readonly string[];
  /** Delivered recordIds kept below each partition's position (`WEBHOOK_DELIVERED_KEEP`). @defaultValue 10000 */
  deliveredKeep?: number;
}

export async function buildWebhookAdapter(deps: WebhookAdapterDeps): Promise<Adapter> {
  const target = createWebhookTarget({
    stateDir: deps.stateDir,
    ...(deps.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: deps.connectTimeoutMs }),
    ...(deps.readTimeoutMs === undefined ? {} : { readTimeoutMs: deps.readTimeoutMs }),
    outbound: { allowed: deps.allowedOutbound ?? [] },
    ...(deps.deliveredKeep === undefined ? {} : { deliveredKeep: deps.deliveredKeep }),
  });
  return buildAdapter({ ...deps, target });
}
