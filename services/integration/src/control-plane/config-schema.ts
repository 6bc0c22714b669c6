/**
 * Attachment configs are validated against the JSON schema their adapter type
 * published. The control plane creates one `ConfigSchemas` and hands it to the routes
 * that need it: non-strict Ajv (adapter authors may use any standard keyword), formats
 * enabled, defaults filled in, compiled validators cached per schema text (bounded).
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { ValidatorCache } from '../json-schema/validator-cache.js';

export type JsonSchema = Record<string, unknown>;

export interface ConfigSchemas {
  /** Compiles (or reuses) a validator; throws when the schema itself is not valid JSON Schema. */
  validator(schema: JsonSchema): ValidateFunction;
}

export function createConfigSchemas(maxValidators?: number): ConfigSchemas {
  const cache = new ValidatorCache(
    { allErrors: true, strict: false, useDefaults: true },
    maxValidators,
  );
  return { validator: (schema) => cache.compile(JSON.stringify(schema), schema) };
}

export interface ConfigError {
  /** `config.filePath` style path of the offending member. */
  path: string;
  message: string;
  /** The adapter type's own description of that field, when it has one. */
  description?: string;
}

/** The description a schema gives for the property at a JSON pointer (`/columns/0` → columns). */
function describe(schema: JsonSchema, pointer: string): string | undefined {
  let node: JsonSchema | undefined = schema;
  let found: string | undefined;
  for (const part of pointer.split('/').filter(Boolean)) {
    if (!node) break;
    const props = node.properties as Record<string, JsonSchema> | undefined;
    node =
      props?.[part] ?? (/^\d+$/.test(part) ? (node.items as JsonSchema | undefined) : undefined);
    if (typeof node?.description === 'string') found = node.description;
  }
  return found;
}

export function configErrors(schema: JsonSchema, errorObjects: ErrorObject[]): ConfigError[] {
  return errorObjects.map((error) => {
    let pointer = error.instancePath;
    const params = error.params as Record<string, unknown>;
    if (error.keyword === 'required') pointer += `/${String(params.missingProperty)}`;
    if (error.keyword === 'additionalProperties')
      pointer += `/${String(params.additionalProperty)}`;
    const path = `config${pointer
      .split('/')
      .filter(Boolean)
      .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`))
      .join('')}`;
    const message =
      error.keyword === 'required'
        ? 'is required'
        : error.keyword === 'additionalProperties'
          ? 'is not a config member of this adapter type'
          : (error.message ?? 'is invalid');
    const description = describe(schema, pointer);
    return description === undefined ? { path, message } : { path, message, description };
  });
}
