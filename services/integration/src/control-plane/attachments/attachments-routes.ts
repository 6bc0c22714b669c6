/** Attachments of adapter types to contracts, and the feed adapters read them from. */
import type { SqlDatabase } from '@platform/core';
import type { FastifyInstance } from 'fastify';
import { findContract, listContracts } from '../../contracts/contract-store.js';
import { errors } from '../../errors.js';
import { attachAdapter } from './attach-adapter.js';
import { listAttachments, setAttachmentEnabled } from './attachment-store.js';
import { maskAttachment } from './mask-secrets.js';

const tags = ['attachments'];
const idParams = { type: 'object', properties: { contractId: { type: 'string' } }, required: ['contractId'] };

export function registerAttachmentRoutes(app: FastifyInstance, deps: { db: SqlDatabase }): void {
  const { db } = deps;

  app.post<{ Params: { contractId: string } }>(
    '/contracts/:contractId/adapters',
    {
      config: { scope: 'operate' }, schema: {
        summary: "Attach an adapter type to a contract; the config is validated against the type's config schema",
        tags,
        params: idParams,
        body: { type: 'object', description: '{ adapterType, config, enabled? }' },
      },
    },
    async (request, reply) => {
      const attachment = await attachAdapter(db, request.params.contractId, request.body);
      request.log.info({ contractId: attachment.contractId, adapterType: attachment.adapterType, attachmentId: attachment.attachmentId }, 'adapter attached');
      return reply
        .code(201)
        .header('location', `/contracts/${attachment.contractId}/adapters/${attachment.attachmentId}`)
        .send({ attachment: maskAttachment(attachment) });
    },
  );

  app.get<{ Params: { contractId: string } }>(
    '/contracts/:contractId/adapters',
    { config: { scope: 'read' }, schema: { summary: 'Attachments of a contract (secrets such as tokens show as ********)', tags, params: idParams } },
    async (request) => {
      if (!(await findContract(db, request.params.contractId))) throw errors.CONTRACT_NOT_FOUND();
      return { attachments: (await listAttachments(db, { contractId: request.params.contractId })).map(maskAttachment) };
    },
  );

  app.patch<{ Params: { contractId: string; attachmentId: string }; Body: unknown }>(
    '/contracts/:contractId/adapters/:attachmentId',
    {
      config: { scope: 'operate' }, schema: {
        summary: 'Enable or disable an attachment ({"enabled": bool})',
        tags,
        params: {
          type: 'object',
          properties: { contractId: { type: 'string' }, attachmentId: { type: 'string' } },
          required: ['contractId', 'attachmentId'],
        },
        body: { type: 'object', description: '{ "enabled": true | false }' },
      },
    },
    async (request) => {
      const body = request.body as Record<string, unknown>;
      const extra = Object.keys(body).filter((key) => key !== 'enabled');
      if (typeof body.enabled !== 'boolean' || extra.length > 0) {
        throw errors.ADAPTER_CONFIG_INVALID({
          detail: 'the body must be {"enabled": true | false}',
          body: { errors: [{ path: typeof body.enabled !== 'boolean' ? 'enabled' : extra[0], message: typeof body.enabled !== 'boolean' ? 'must be true or false' : 'cannot be changed' }] },
        });
      }
      const { contractId, attachmentId } = request.params;
      if (!(await findContract(db, contractId))) throw errors.CONTRACT_NOT_FOUND();
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(attachmentId)) throw errors.ATTACHMENT_NOT_FOUND();
      const attachment = await setAttachmentEnabled(db, contractId, attachmentId, body.enabled);
      if (!attachment) throw errors.ATTACHMENT_NOT_FOUND();
      request.log.info({ contractId, attachmentId, enabled: attachment.enabled }, 'attachment toggled');
      return { attachment: maskAttachment(attachment) };
    },
  );

  app.get<{ Querystring: { adapterType?: string } }>(
    '/attachments',
    {
      config: { scope: 'operate' }, schema: {
        summary: 'Attachments feed for adapters: every attachment of a type with its full current contract',
        tags,
        querystring: { type: 'object', properties: { adapterType: { type: 'string' } } },
      },
    },
    async (request) => {
      const [attachments, contracts] = await Promise.all([
        listAttachments(db, request.query.adapterType === undefined ? {} : { adapterType: request.query.adapterType }),
        listContracts(db),
      ]);
      const byId = new Map(contracts.map((stored) => [stored.contract.contractId, stored.contract]));
      return { attachments: attachments.map((attachment) => ({ ...attachment, contract: byId.get(attachment.contractId) })) };
    },
  );
}
