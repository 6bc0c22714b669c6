/**
 * Checks an adapter type descriptor sent to `PUT /adapter-types/{type}`: a type name, a
 * description, a consumer group, an optional admin URL, and a config schema that is an
 * object schema whose every property carries a description (so the control plane can
 * quote it back when an attachment config is refused) and that compiles.
 */
import type { ConfigSchemas, JsonSchema } from '../config-schema.js';
import type { AdapterTypeDescriptor } from './adapter-type-store.js';

export const ADAPTER_TYPE_PATTERN = /^[a-z][a-z0-9_-]{0,62}$/;
const GROUP_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export interface DescriptorViolation {
  path: string;
  message: string;
}

export function validateDescriptor(
  type: string,
  input: unknown,
  configSchemas: ConfigSchemas,
): { descriptor?: AdapterTypeDescriptor; violations: DescriptorViolation[] } {
  const violations: DescriptorViolation[] = [];
  const fail = (path: string, message: string) => violations.push({ path, message });
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { violations: [{ path: '', message: 'must be a JSON object' }] };
  }
  const body = input as Record<string, unknown>;
  if (!ADAPTER_TYPE_PATTERN.test(type))
    fail('type', 'must be a lower-case name (letters, digits, _ or -)');
  if (body.type !== undefined && body.type !== type) fail('type', 'must match the path');
  if (typeof body.description !== 'string' || body.description.trim() === '')
    fail('description', 'must be a non-empty string');
  if (typeof body.consumerGroup !== 'string' || !GROUP_PATTERN.test(body.consumerGroup)) {
    fail('consumerGroup', 'must be an explicit consumer group id (letters, digits, ., _ or -)');
  }
  if (body.adminUrl !== undefined && body.adminUrl !== null) {
    let ok = false;
    try {
      ok = ['http:', 'https:'].includes(new URL(String(body.adminUrl)).protocol);
    } catch {
      ok = false;
    }
    if (!ok || typeof body.adminUrl !== 'string') fail('adminUrl', 'must be an http(s) URL');
  }
  const schema = body.configSchema as JsonSchema | undefined;
  if (
    typeof schema !== 'object' ||
    schema === null ||
    Array.isArray(schema) ||
    schema.type !== 'object'
  ) {
    fail('configSchema', 'must be a JSON schema of type object');
  } else {
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    for (const [name, property] of Object.entries(properties)) {
      if (typeof property?.description !== 'string' || property.description.trim() === '') {
        fail(
          `configSchema.properties.${name}.description`,
          'every config field needs a description',
        );
      }
    }
    try {
      configSchemas.validator(schema);
    } catch (error) {
      fail(
        'configSchema',
        `does not compile: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  if (violations.length > 0) return { violations };
  return {
    violations,
    descriptor: {
      type,
      description: (body.description as string).trim(),
      configSchema: schema as JsonSchema,
      consumerGroup: body.consumerGroup as string,
      adminUrl: (body.adminUrl as string | undefined) ?? undefined,
    },
  };
}
