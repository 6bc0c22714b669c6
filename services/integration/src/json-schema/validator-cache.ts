/**
 * Compiled JSON Schema validators, each cache created by the part that needs it and
 * handed down like any other dependency (no module-level Ajv). Bounded both ways: at
 * most `maxEntries` compiled validators (least recently used dropped), and the Ajv
 * instance forgets every schema once compiled — Ajv keeps each compiled schema object,
 * and a `$id` seen twice would otherwise be refused.
 */
import { Ajv, type Options as AjvOptions, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** Default bound: far above the contracts and adapter types a platform holds at once. */
export const DEFAULT_MAX_VALIDATORS = 1000;

export class ValidatorCache {
  readonly #ajv: Ajv;
  readonly #validators = new Map<string, ValidateFunction>();

  constructor(
    ajvOptions: AjvOptions,
    readonly maxEntries = DEFAULT_MAX_VALIDATORS,
  ) {
    this.#ajv = addFormats(new Ajv(ajvOptions));
  }

  /** Entries held now (for tests and metrics). */
  get size(): number {
    return this.#validators.size;
  }

  /** The validator of `schema`, compiled once per `key`; throws when the schema does not compile. */
  compile(key: string, schema: Record<string, unknown>): ValidateFunction {
    const known = this.#validators.get(key);
    if (known) {
      // Map order is insertion order: re-inserting marks it most recently used.
      this.#validators.delete(key);
      this.#validators.set(key, known);
      return known;
    }
    const validate = this.#ajv.compile(schema);
    this.#ajv.removeSchema(schema);
    this.#validators.set(key, validate);
    if (this.#validators.size > this.maxEntries)
      this.#validators.delete(this.#validators.keys().next().value!);
    return validate;
  }
}
