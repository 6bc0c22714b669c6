/**
 * Attachments of adapter types to contracts, and the feed adapters read them from. The
 * feed carries a `version` (a digest of its content); an adapter that passes the version
 * it knows with `waitSeconds` is answered as soon as the feed differs (a long poll), so a
 * new, changed, enabled or disabled attachment reaches running adapters at once instead
 * of at their next poll.
 */
import { createHash } from 'node:crypto';
import { errorResponses, type SqlDatabase, type Unlisten } from '@platform/core';
import type { FastifyInstance } from 'fastify';
import {
  CONTRACT_CHANGED_CHANNEL,
  findContract,
  listContracts,
} from '../../contracts/contract-store.js';
import { integrationErrors } from '../../errors.js';
import type { ConfigSchemas } from '../config-schema.js';
import { attachAdapter } from './attach-adapter.js';
import {
  ATTACHMENTS_CHANGED_CHANNEL,
  listAttachments,
  setAttachmentEnabled,
} from './attachment-store.js';
import { maskAttachment } from './mask-secrets.js';
import { ChangeSignal } from './change-signal.js';

/**
 * How often a waiting feed request re-reads the feed although no change was notified: the
 * bound for a notification lost while the LISTEN session reconnected, or for a change
 * made straight in the database. Changes made through any control plane arrive by NOTIFY
 * at once, so this is a last resort (each re-read is two statements per waiting adapter,
 * which the embedded default's one PGlite session pays between batches).
 */
const FEED_RECHECK_MS = 5000;
/** The re-read bound when the database has no LISTEN/NOTIFY (or the LISTEN failed). */
const FEED_RECHECK_UNNOTIFIED_MS = 250;
/** Longest wait a feed request may ask for. */
const FEED_MAX_WAIT_SECONDS = 30;

const tags = ['attachments'];
const attachmentSchema = {
  type: 'object',
  required: ['attachmentId', 'contractId', 'adapterType', 'config', 'enabled'],
  properties: {
    attachmentId: { type: 'string' },
    contractId: { type: 'string' },
    adapterType: { type: 'string' },
    config: {
      type: 'object',
      additionalProperties: true,
      description: "The type's config; secrets (tokens, HMAC secrets) show as ********",
    },
    enabled: { type: 'boolean' },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
  },
} as const;
const oneAttachment = (description: string) => ({
  description,
  type: 'object',
  required: ['attachment'],
  properties: { attachment: attachmentSchema },
});
const idParams = {
  type: 'object',
  properties: { contractId: { type: 'string' } },
  required: ['contractId'],
};

export function registerAttachmentRoutes(
  app: FastifyInstance,
  deps: { db: SqlDatabase; configSchemas: ConfigSchemas; feedRecheckMs?: number },
): void {
  const { db, configSchemas } = deps;
  // Only a change of what the feed carries wakes the waiting feed requests: an attachment
  // added or toggled (its statement NOTIFYs with the adapter type, waking that type's
  // waiters only) or a contract changed (every type's feed carries its contracts). Each
  // woken request re-reads the feed and answers if it changed. Every other write — above
  // all the adapters' heartbeat PUT every few seconds — wakes nothing: on the embedded
  // default each wake cost every waiting adapter two statements in the one PGlite session.
  const changes = new ChangeSignal();
  let recheckMs = FEED_RECHECK_UNNOTIFIED_MS;
  const unlisten: Unlisten[] = [];
  app.addHook('onReady', async () => {
    if (!db.supportsListenNotify) return;
    try {
      unlisten.push(
        await db.listen(ATTACHMENTS_CHANGED_CHANNEL, (adapterType) => changes.notify(adapterType)),
      );
      unlisten.push(await db.listen(CONTRACT_CHANGED_CHANNEL, () => changes.notify()));
      recheckMs = deps.feedRecheckMs ?? FEED_RECHECK_MS;
    } catch (error) {
      app.log.warn(
        { err: error },
        `attachment change notifications unavailable; waiting feed requests re-read every ${FEED_RECHECK_UNNOTIFIED_MS} ms`,
      );
    }
  });
  app.addHook('onClose', async () => {
    for (const stop of unlisten.splice(0)) await stop().catch(() => undefined);
  });
  app.addHook('preClose', async () => {
    changes.close();
    // Waiting polls answer at once on close; a connection an adapter left open after
    // its poll (its client gone mid-answer) is cut shortly after, so close() never waits
    // on a client that will not hang up.
    setTimeout(() => app.server.closeAllConnections(), 500).unref();
  });

  const readFeed = async (adapterType: string | undefined) => {
    const [attachments, contracts] = await Promise.all([
      listAttachments(db, adapterType === undefined ? {} : { adapterType }),
      listContracts(db),
    ]);
    const byId = new Map(contracts.map((stored) => [stored.contract.contractId, stored.contract]));
    const feed = attachments.map((attachment) => ({
      ...attachment,
      contract: byId.get(attachment.contractId),
    }));
    const version = createHash('sha256').update(JSON.stringify(feed)).digest('hex').slice(0, 32);
    return { attachments: feed, version };
  };

  app.post<{ Params: { contractId: string } }>(
    '/contracts/:contractId/adapters',
    {
      config: { scope: 'operate' },
      schema: {
        summary:
          "Attach an adapter type to a contract; the config is validated against the type's config schema",
        operationId: 'attachAdapter',
        tags,
        params: idParams,
        body: { type: 'object', description: '{ adapterType, config, enabled? }' },
        response: {
          201: oneAttachment('Attached; `Location` names the attachment'),
          ...errorResponses(integrationErrors.definitions, [
            'ADAPTER_CONFIG_INVALID',
            'ADAPTER_TYPE_UNKNOWN',
            'CONTRACT_NOT_FOUND',
            'ATTACHMENT_EXISTS',
          ]),
        },
      },
    },
    async (request, reply) => {
      const attachment = await attachAdapter(
        db,
        request.params.contractId,
        request.body,
        configSchemas,
      );
      request.log.info(
        {
          contractId: attachment.contractId,
          adapterType: attachment.adapterType,
          attachmentId: attachment.attachmentId,
        },
        'adapter attached',
      );
      return reply
        .code(201)
        .header(
          'location',
          `/contracts/${attachment.contractId}/adapters/${attachment.attachmentId}`,
        )
        .send({ attachment: maskAttachment(attachment) });
    },
  );

  app.get<{ Params: { contractId: string } }>(
    '/contracts/:contractId/adapters',
    {
      config: { scope: 'read' },
      schema: {
        operationId: 'listContractAttachments',
        summary: 'Attachments of a contract (secrets such as tokens show as ********)',
        tags,
        params: idParams,
        response: {
          200: {
            description: 'The attachments of the contract',
            type: 'object',
            required: ['attachments'],
            properties: { attachments: { type: 'array', items: attachmentSchema } },
          },
          ...errorResponses(integrationErrors.definitions, ['CONTRACT_NOT_FOUND']),
        },
      },
    },
    async (request) => {
      if (!(await findContract(db, request.params.contractId)))
        throw integrationErrors.CONTRACT_NOT_FOUND();
      return {
        attachments: (await listAttachments(db, { contractId: request.params.contractId })).map(
          maskAttachment,
        ),
      };
    },
  );

  app.patch<{ Params: { contractId: string; attachmentId: string }; Body: unknown }>(
    '/contracts/:contractId/adapters/:attachmentId',
    {
      config: { scope: 'operate' },
      schema: {
        operationId: 'setAttachmentEnabled',
        summary: 'Enable or disable an attachment ({"enabled": bool})',
        tags,
        params: {
          type: 'object',
          properties: { contractId: { type: 'string' }, attachmentId: { type: 'string' } },
          required: ['contractId', 'attachmentId'],
        },
        body: { type: 'object', description: '{ "enabled": true | false }' },
        response: {
          200: oneAttachment('The attachment as it is now'),
          ...errorResponses(integrationErrors.definitions, [
            'ADAPTER_CONFIG_INVALID',
            'CONTRACT_NOT_FOUND',
            'ATTACHMENT_NOT_FOUND',
          ]),
        },
      },
    },
    async (request) => {
      const body = request.body as Record<string, unknown>;
      const extra = Object.keys(body).filter((key) => key !== 'enabled');
      if (typeof body.enabled !== 'boolean' || extra.length > 0) {
        throw integrationErrors.ADAPTER_CONFIG_INVALID({
          detail: 'the body must be {"enabled": true | false}',
          body: {
            errors: [
              {
                path: typeof body.enabled !== 'boolean' ? 'enabled' : extra[0],
                message:
                  typeof body.enabled !== 'boolean' ? 'must be true or false' : 'cannot be changed',
              },
            ],
          },
        });
      }
      const { contractId, attachmentId } = request.params;
      if (!(await findContract(db, contractId))) throw integrationErrors.CONTRACT_NOT_FOUND();
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(attachmentId))
        throw integrationErrors.ATTACHMENT_NOT_FOUND();
      const attachment = await setAttachmentEnabled(db, contractId, attachmentId, body.enabled);
      if (!attachment) throw integrationErrors.ATTACHMENT_NOT_FOUND();
      request.log.info(
        { contractId, attachmentId, enabled: attachment.enabled },
        'attachment toggled',
      );
      return { attachment: maskAttachment(attachment) };
    },
  );

  app.get<{ Querystring: { adapterType?: string; knownVersion?: string; waitSeconds?: number } }>(
    '/attachments',
    {
      config: { scope: 'operate' },
      schema: {
        operationId: 'readAttachmentFeed',
        summary:
          'Attachments feed for adapters: every attachment of a type with its full current contract',
        description:
          'With knownVersion and waitSeconds, a long poll: answered as soon as the feed version differs from knownVersion, or after waitSeconds with the unchanged feed.',
        tags,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            adapterType: { type: 'string', maxLength: 200 },
            knownVersion: {
              type: 'string',
              maxLength: 64,
              description: 'The feed version the caller holds.',
            },
            waitSeconds: {
              type: 'integer',
              minimum: 0,
              maximum: FEED_MAX_WAIT_SECONDS,
              default: 0,
              description: 'How long to wait for a change of knownVersion.',
            },
          },
        },
        response: {
          200: {
            description: 'The feed and its version',
            type: 'object',
            required: ['attachments', 'version'],
            properties: {
              attachments: {
                type: 'array',
                items: {
                  type: 'object',
                  description:
                    'An attachment (secrets in clear: the feed is for adapters) with its current contract',
                  required: attachmentSchema.required,
                  properties: {
                    ...attachmentSchema.properties,
                    config: { type: 'object', additionalProperties: true },
                    contract: { $ref: 'Contract#' },
                  },
                },
              },
              version: { type: 'string', description: 'A digest of the feed (knownVersion)' },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const { adapterType, knownVersion, waitSeconds = 0 } = request.query;
      let feed = await readFeed(adapterType);
      if (knownVersion === undefined || waitSeconds === 0) return feed;
      const deadline = Date.now() + waitSeconds * 1000;
      let gone = false;
      reply.raw.once('close', () => (gone = true));
      while (feed.version === knownVersion && !gone && Date.now() < deadline) {
        if (!(await changes.next(Math.min(recheckMs, deadline - Date.now()), adapterType))) break;
        feed = await readFeed(adapterType);
      }
      return feed;
    },
  );
}
