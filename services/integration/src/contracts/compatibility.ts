/**
 * Contract evolution in BACKWARD mode (spec section 9.3), checked at both levels:
 *
 * - contract level: the evolution table — fields removed or renamed, required fields
 *   added without a default, types changed other than widened (email, date and enum to
 *   string), enum values removed, natural-key strategy changed, record types removed or
 *   re-classed;
 * - envelope level: the envelope JSON schema of each lifecycle class the old version
 *   declares, compared with `json-schema-compatibility.ts`.
 *
 * Returns every incompatibility with its level, path, rule and reason; an empty list
 * means the new definition may replace the old one.
 */
import type { ContractDefinition, FieldType } from './contract.js';
import { declaredClasses } from './contract.js';
import { envelopeSchema } from './envelope.js';
import { backwardSchemaIncompatibilities } from './json-schema-compatibility.js';

export interface Incompatibility {
  level: 'contract' | 'envelope';
  path: string;
  rule: string;
  message: string;
}

/** A type change old → new that every old value survives. */
const WIDENINGS: Partial<Record<FieldType, FieldType[]>> = {
  email: ['string'],
  date: ['string'],
  enum: ['string'],
};

export function checkCompatibility(
  previous: ContractDefinition,
  next: ContractDefinition,
): Incompatibility[] {
  return [...contractLevel(previous, next), ...envelopeLevel(previous, next)];
}

function contractLevel(previous: ContractDefinition, next: ContractDefinition): Incompatibility[] {
  const found: Incompatibility[] = [];
  const add = (path: string, rule: string, message: string) =>
    found.push({ level: 'contract', path, rule, message });

  if (previous.contractId !== next.contractId)
    add('contractId', 'contract-id-changed', 'the contract id cannot change');
  const oldKey = previous.naturalKey;
  const newKey = next.naturalKey;
  if (
    oldKey.strategy !== newKey.strategy ||
    oldKey.fields.join('\u0000') !== newKey.fields.join('\u0000')
  ) {
    add(
      'naturalKey',
      'natural-key-changed',
      'the natural-key strategy cannot change; create a new contract instead',
    );
  }

  const added = next.fields.filter((f) => !previous.fields.some((o) => o.name === f.name));
  previous.fields.forEach((old, index) => {
    const path = `fields[${index}]`;
    const now = next.fields.find((f) => f.name === old.name);
    if (!now) {
      const twin = added.find((f) => f.type === old.type);
      const hint = twin ? ` (a rename to ${twin.name} is a removal plus an addition)` : '';
      return add(
        path,
        'field-removed',
        `field ${old.name} was removed; consumers may depend on it${hint}`,
      );
    }
    if (now.type !== old.type && !WIDENINGS[old.type]?.includes(now.type)) {
      add(
        `${path}.type`,
        'type-changed',
        `field ${old.name} changed type from ${old.type} to ${now.type}, which is not a widening`,
      );
    }
    if (old.type === 'enum' && now.type === 'enum') {
      const removed = (old.values ?? []).filter((v) => !(now.values ?? []).includes(v));
      if (removed.length > 0)
        add(
          `${path}.values`,
          'enum-value-removed',
          `field ${old.name} no longer allows ${removed.join(', ')}`,
        );
    }
    if (now.required && !old.required && now.default === undefined) {
      add(
        `${path}.required`,
        'made-required-without-default',
        `field ${old.name} became required without a default`,
      );
    }
  });
  for (const field of added) {
    if (field.required && field.default === undefined) {
      add(
        `fields[${next.fields.indexOf(field)}]`,
        'required-field-without-default',
        `new field ${field.name} is required but has no default`,
      );
    }
  }

  for (const type of previous.recordTypes) {
    if (!next.recordTypes.includes(type))
      add('recordTypes', 'record-type-removed', `record type ${type} was removed`);
    else if (next.lifecycle[type] !== previous.lifecycle[type]) {
      add(
        `lifecycle.${type}`,
        'lifecycle-class-changed',
        `record type ${type} moved from ${previous.lifecycle[type]} to ${next.lifecycle[type]}`,
      );
    }
  }
  return found;
}

function envelopeLevel(previous: ContractDefinition, next: ContractDefinition): Incompatibility[] {
  return declaredClasses(previous).flatMap((cls) =>
    backwardSchemaIncompatibilities(envelopeSchema(previous, cls), envelopeSchema(next, cls)).map(
      (issue) => ({
        level: 'envelope' as const,
        path: `${cls}:${issue.path}`,
        rule: issue.rule,
        message: issue.message,
      }),
    ),
  );
}
