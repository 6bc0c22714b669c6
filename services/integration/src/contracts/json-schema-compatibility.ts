/**
 * BACKWARD compatibility of two JSON schemas of the shape `envelope.ts` produces (objects,
 * strings with `format`/`enum`/`const`/`maxLength`, integers): can a reader holding the NEW schema
 * read every document valid under the OLD one? Reports each place where it cannot.
 */
export interface SchemaIncompatibility {
  /** JSON-pointer-like path into the document, e.g. `/payload/email`. */
  path: string;
  rule: string;
  message: string;
}

type Schema = Record<string, unknown>;

const asSchema = (value: unknown): Schema =>
  typeof value === 'object' && value !== null ? (value as Schema) : {};

export function backwardSchemaIncompatibilities(
  oldSchema: Schema,
  newSchema: Schema,
  path = '',
): SchemaIncompatibility[] {
  const found: SchemaIncompatibility[] = [];
  const at = path || '/';
  if (oldSchema.type !== newSchema.type) {
    found.push({
      path: at,
      rule: 'type-changed',
      message: `type changed from ${String(oldSchema.type)} to ${String(newSchema.type)}`,
    });
    return found;
  }
  if (newSchema.const !== undefined && newSchema.const !== oldSchema.const) {
    found.push({
      path: at,
      rule: 'const-changed',
      message: `value fixed to ${JSON.stringify(newSchema.const)} (was ${JSON.stringify(oldSchema.const)})`,
    });
  }
  if (newSchema.format !== undefined && newSchema.format !== oldSchema.format) {
    found.push({
      path: at,
      rule: 'format-narrowed',
      message: `format ${String(newSchema.format)} now required (was ${String(oldSchema.format ?? 'none')})`,
    });
  }
  if (Array.isArray(newSchema.enum)) {
    const allowed = new Set(newSchema.enum);
    const lost = Array.isArray(oldSchema.enum)
      ? oldSchema.enum.filter((v) => !allowed.has(v))
      : ['(any value)'];
    if (lost.length > 0) {
      found.push({
        path: at,
        rule: 'enum-narrowed',
        message: `values no longer accepted: ${lost.join(', ')}`,
      });
    }
  }
  if (
    typeof newSchema.minimum === 'number' &&
    (typeof oldSchema.minimum !== 'number' || newSchema.minimum > oldSchema.minimum)
  ) {
    found.push({
      path: at,
      rule: 'minimum-raised',
      message: `minimum raised to ${newSchema.minimum}`,
    });
  }
  if (
    typeof newSchema.maxLength === 'number' &&
    (typeof oldSchema.maxLength !== 'number' || newSchema.maxLength < oldSchema.maxLength)
  ) {
    found.push({
      path: at,
      rule: 'max-length-lowered',
      message: `maxLength lowered to ${newSchema.maxLength}; longer older values no longer validate`,
    });
  }
  if (newSchema.type !== 'object') return found;

  const oldProps = asSchema(oldSchema.properties);
  const newProps = asSchema(newSchema.properties);
  const oldRequired = new Set((oldSchema.required as string[] | undefined) ?? []);
  const closed = newSchema.additionalProperties === false;
  for (const name of Object.keys(oldProps)) {
    const child = `${path}/${name}`;
    if (name in newProps)
      found.push(
        ...backwardSchemaIncompatibilities(
          asSchema(oldProps[name]),
          asSchema(newProps[name]),
          child,
        ),
      );
    else if (closed)
      found.push({
        path: child,
        rule: 'property-removed',
        message: `property ${name} removed; documents carrying it no longer validate`,
      });
  }
  for (const name of (newSchema.required as string[] | undefined) ?? []) {
    if (oldRequired.has(name)) continue;
    if (asSchema(newProps[name]).default !== undefined) continue;
    found.push({
      path: `${path}/${name}`,
      rule: 'required-added',
      message: `property ${name} is now required without a default; older documents may lack it`,
    });
  }
  if (closed && oldSchema.additionalProperties !== false) {
    found.push({
      path: at,
      rule: 'closed',
      message: 'additional properties are no longer allowed',
    });
  }
  return found;
}
