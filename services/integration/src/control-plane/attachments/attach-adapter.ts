/**
 * Attaching an adapter type to a contract: the contract must exist, the type must have
 * registered, and the config must satisfy the type's published config schema (defaults
 * of the schema filled in); a refusal quotes the type's own description of the field.
 */
import { randomUUID } from 'node:crypto';
import type { SqlExecutor } from '@platform/core';
import { findContract } from '../../contracts/contract-store.js';
import { integrationErrors } from '../../errors.js';
import { findAdapterType } from '../adapter-types/adapter-type-store.js';
import { configErrors, type ConfigSchemas } from '../config-schema.js';
import { insertAttachment, type Attachment } from './attachment-store.js';

export async function attachAdapter(
  db: SqlExecutor,
  contractId: string,
  input: unknown,
  configSchemas: ConfigSchemas,
): Promise<Attachment> {
  if (!(await findContract(db, contractId))) throw integrationErrors.CONTRACT_NOT_FOUND();
  const body = (
    typeof input === 'object' && input !== null && !Array.isArray(input) ? input : {}
  ) as Record<string, unknown>;
  const unknownKeys = Object.keys(body).filter(
    (key) => key !== 'adapterType' && key !== 'config' && key !== 'enabled',
  );
  if (unknownKeys.length > 0) {
    throw integrationErrors.ADAPTER_CONFIG_INVALID({
      detail: `${unknownKeys[0]} is not a member of an attachment (adapterType, config, enabled)`,
      body: {
        errors: unknownKeys.map((key) => ({
          path: key,
          message: 'is not a member of an attachment',
        })),
      },
    });
  }
  if (typeof body.adapterType !== 'string') {
    throw integrationErrors.ADAPTER_TYPE_UNKNOWN({
      detail: 'adapterType is required',
      body: { errors: [{ path: 'adapterType', message: 'is required' }] },
    });
  }
  const type = await findAdapterType(db, body.adapterType);
  if (!type) {
    throw integrationErrors.ADAPTER_TYPE_UNKNOWN({
      detail: `unknown adapter type ${JSON.stringify(body.adapterType)}: no adapter of that type has registered`,
      body: {
        errors: [{ path: 'adapterType', message: 'no adapter of that type has registered' }],
      },
    });
  }
  if (body.enabled !== undefined && typeof body.enabled !== 'boolean') {
    throw integrationErrors.ADAPTER_CONFIG_INVALID({
      detail: 'enabled must be true or false',
      body: { errors: [{ path: 'enabled', message: 'must be true or false' }] },
    });
  }
  const config = structuredClone(body.config ?? {}) as Record<string, unknown>;
  const validate = configSchemas.validator(type.configSchema);
  if (typeof config !== 'object' || config === null || Array.isArray(config) || !validate(config)) {
    const found =
      typeof config === 'object' && config !== null && !Array.isArray(config)
        ? configErrors(type.configSchema, validate.errors ?? [])
        : [{ path: 'config', message: 'must be an object' }];
    const first = found[0]!;
    const quoted =
      'description' in first && first.description ? ` (${first.path}: "${first.description}")` : '';
    throw integrationErrors.ADAPTER_CONFIG_INVALID({
      detail: `attachment config fails the ${type.type} config schema: ${first.path} ${first.message}${quoted}`,
      body: { errors: found },
    });
  }
  const attachment = await insertAttachment(db, {
    attachmentId: randomUUID(),
    contractId,
    adapterType: type.type,
    config,
    ...(body.enabled === undefined ? {} : { enabled: body.enabled as boolean }),
  });
  if (!attachment) throw integrationErrors.ATTACHMENT_EXISTS();
  return attachment;
}
