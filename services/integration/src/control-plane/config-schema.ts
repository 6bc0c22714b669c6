/**
 * Attachment configs are validated against the JSON schema their adapter type
 * published. One Ajv instance (non-strict: adapter authors may use any standard
 * keyword; formats enabled; defaults filled in) with compiled validators cached per
 * schema text.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ allErrors: true, strict: false, useDefaults: true }));
const cache = new Map<string, ValidateFunction>();

export type JsonSchema = Record<string, unknown>;

/** Compiles (or reuses) a validator; throws when the schema itself is not valid JSON Schema. */
export function configValidator(schema: JsonSchema): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = cache.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    // The validator keeps working; the instance forgets the schema's `$id`, so another
    // type, or this type's next schema, may use the same `$id`.
    ajv.removeSchema(schema);
    cache.set(key, validate);
  }
  return validate;
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
