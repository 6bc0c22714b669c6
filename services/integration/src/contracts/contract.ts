/**
 * The contract model (spec section 2.2): what a registered contract definition looks
 * like once it passed the registration checks of `validate-definition.ts`. The registry
 * stores it whole as JSON; adapters receive it in the attachments feed.
 */

/** Field types a contract may use. */
export const FIELD_TYPES = ['string', 'email', 'date', 'enum'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** Lifecycle classes of record types (section 2.2 rule 4). */
export const LIFECYCLE_CLASSES = ['create', 'update', 'tombstone'] as const;
export type LifecycleClass = (typeof LIFECYCLE_CLASSES)[number];

export interface FieldDefinition {
  /** camelCase payload key; snake_case of it is the column name in shaped tables and CSV. */
  name: string;
  type: FieldType;
  required: boolean;
  /** Gets an expression index in the generic `records` table. @defaultValue false */
  queryable?: boolean;
  /** Allowed values; `enum` fields only. */
  values?: string[];
  /** Applied when the field is absent or blank, before the required check. */
  default?: string;
  /**
   * Longest value accepted, in characters (Unicode code points). Without it the
   * platform's default applies (`FIELD_MAX_LENGTH`, see `payload.ts`).
   */
  maxLength?: number;
}

export interface ContractDefinition {
  /** Lower-case letters, digits, `_` and `-`; topics are `{contractId}.created|updated|deleted`. */
  contractId: string;
  title: string;
  /** Starts at 1; each compatible edit adds one. */
  schemaVersion: number;
  naturalKey: {
    strategy: 'field';
    /** A composite key joins the values with `|`, in this order. */
    fields: string[];
  };
  recordTypes: string[];
  /** The lifecycle class of every record type; exactly one `create`, at most one of each other class. */
  lifecycle: Record<string, LifecycleClass>;
  fields: FieldDefinition[];
}

/** Highest `maxLength` a contract may declare (request bodies are bounded before this anyway). */
export const MAX_FIELD_LENGTH_CEILING = 1_000_000;

/** Separator of composite natural keys. */
export const NATURAL_KEY_SEPARATOR = '|';

/** The record type of a class, or undefined when the contract declares none. */
export function recordTypeOf(
  contract: ContractDefinition,
  lifecycleClass: LifecycleClass,
): string | undefined {
  return contract.recordTypes.find((type) => contract.lifecycle[type] === lifecycleClass);
}

/** The lifecycle classes a contract declares, in create, update, tombstone order. */
export function declaredClasses(contract: ContractDefinition): LifecycleClass[] {
  return LIFECYCLE_CLASSES.filter((cls) => recordTypeOf(contract, cls) !== undefined);
}

/** `internId` → `intern_id`: the column name of a payload field in shaped tables and CSV. */
export function columnName(fieldName: string): string {
  return fieldName
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}
