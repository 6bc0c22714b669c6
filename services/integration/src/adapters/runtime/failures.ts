/**
 * Failure classification (spec section 3): an ordered rule list, first match wins, each
 * rule tested against every error of the cause chain. Narrow non-retriable rules (data
 * errors that PostgreSQL reports like any other data-access error) come before the broad
 * retriable ones. Anything unmatched is non-retriable `UNCLASSIFIED_FAILURE`; a retriable
 * failure that runs out of attempts becomes `RETRY_EXHAUSTED` in the pipeline.
 */
import { isPgliteUnavailable } from '@platform/core';

export type ErrorType =
  'SCHEMA_VIOLATION' | 'UNMAPPABLE_DATA' | 'RETRY_EXHAUSTED' | 'UNCLASSIFIED_FAILURE';

/** The message cannot be read as an envelope (bad JSON, missing or mistyped envelope fields). */
export class DeserializationError extends Error {
  override name = 'DeserializationError';
}

/** The envelope is readable but cannot be mapped onto the target (unknown record type, column, shape). */
export class UnmappableDataError extends Error {
  override name = 'UnmappableDataError';
}

/** BEGIN could not be issued (no connection, pool exhausted). */
export class TransactionOpenError extends Error {
  override name = 'TransactionOpenError';
}

/** The rollback after a failed write failed too. */
export class RollbackError extends Error {
  override name = 'RollbackError';
}

/** A transaction failed outside the statements of the write (COMMIT, connection loss). */
export class TransactionError extends Error {
  override name = 'TransactionError';
}

/** A delivery the receiver may accept later (5xx, 408, 429, timeout, connection error). */
export class TransientDeliveryError extends Error {
  override name = 'TransientDeliveryError';
}

/** A delivery the receiver refused for good (4xx other than 408/429). */
export class PermanentDeliveryError extends Error {
  override name = 'PermanentDeliveryError';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** Another writer holds the lock of a target file. */
export class TargetLockedError extends Error {
  override name = 'TargetLockedError';
  readonly code = 'ELOCKED';
}

export interface Classification {
  retriable: boolean;
  /** Dead-letter type when not retriable (retriable ones become RETRY_EXHAUSTED when exhausted). */
  errorType: ErrorType;
  rule: string;
}

export interface ClassificationRule {
  name: string;
  matches(error: unknown): boolean;
  retriable: boolean;
  errorType: ErrorType;
}

const code = (error: unknown): string | undefined => {
  const value = (error as { code?: unknown } | null)?.code;
  return typeof value === 'string' ? value : undefined;
};
const message = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
/**
 * The disk under the target failing or full: every record would fail alike until it is
 * back, so the consumer waits (outage budget) instead of dead-lettering each record
 * (issue 21: found by the chaos run's failing fsync, which dead-lettered a batch a second).
 */
const DISK_DOWN_CODES = new Set(['EIO', 'ENOSPC', 'EDQUOT']);
const FILE_IO_CODES = new Set([
  'EEXIST',
  'EACCES',
  'EPERM',
  'ENOSPC',
  'EROFS',
  'EIO',
  'ENOENT',
  'ENOTDIR',
  'EISDIR',
  'EMFILE',
  'ENFILE',
  'EBUSY',
  'EDQUOT',
  'ELOCKED',
]);
/** SQLSTATE classes: 08 connection, 40 transaction rollback, 53 resources, 57 operator intervention, 58 system. */
const TRANSIENT_SQLSTATE = /^(08|40|53|57|58)|^3D000$|^55P03$/;
/** SQLSTATE classes of bad data: 22 data exception, 23 integrity violation, 42 undefined column etc. */
const DATA_SQLSTATE = /^(22|23|42)/;
const isSqlState = (value: string | undefined): value is string =>
  value !== undefined && /^[0-9A-Z]{5}$/.test(value);

/** The shared rules, in order. Adapters may put their own before them. */
export const DEFAULT_RULES: ClassificationRule[] = [
  {
    name: 'deserialization',
    matches: (e) => e instanceof DeserializationError || e instanceof SyntaxError,
    retriable: false,
    errorType: 'SCHEMA_VIOLATION',
  },
  {
    name: 'unmappable data',
    matches: (e) => e instanceof UnmappableDataError,
    retriable: false,
    errorType: 'UNMAPPABLE_DATA',
  },
  {
    name: 'receiver rejected the data',
    matches: (e) =>
      e instanceof PermanentDeliveryError && [400, 409, 413, 415, 422].includes(e.status),
    retriable: false,
    errorType: 'UNMAPPABLE_DATA',
  },
  {
    name: 'receiver refused',
    matches: (e) => e instanceof PermanentDeliveryError,
    retriable: false,
    errorType: 'UNCLASSIFIED_FAILURE',
  },
  // Narrower than "data-access error": listed before the transient rule below.
  {
    name: 'data rejected by the database',
    matches: (e) => isSqlState(code(e)) && DATA_SQLSTATE.test(code(e)!),
    retriable: false,
    errorType: 'UNMAPPABLE_DATA',
  },
  {
    name: 'connection refused',
    matches: (e) =>
      CONNECTION_CODES.has(code(e) ?? '') ||
      /connection (refused|terminated)|ECONNREFUSED/i.test(message(e)) ||
      isPgliteUnavailable(e),
    retriable: true,
    errorType: 'RETRY_EXHAUSTED',
  },
  {
    name: 'transient data-access error',
    matches: (e) => isSqlState(code(e)) && TRANSIENT_SQLSTATE.test(code(e)!),
    retriable: true,
    errorType: 'RETRY_EXHAUSTED',
  },
  {
    name: 'failed to open a transaction',
    matches: (e) => e instanceof TransactionOpenError,
    retriable: true,
    errorType: 'RETRY_EXHAUSTED',
  },
  {
    name: 'rollback failed after a write error',
    matches: (e) => e instanceof RollbackError,
    retriable: true,
    errorType: 'RETRY_EXHAUSTED',
  },
  {
    name: 'wrapped transaction error',
    matches: (e) => e instanceof TransactionError,
    retriable: true,
    errorType: 'RETRY_EXHAUSTED',
  },
  {
    name: 'transient delivery failure',
    matches: (e) => e instanceof TransientDeliveryError,
    retriable: true,
    errorType: 'RETRY_EXHAUSTED',
  },
  {
    name: 'disk failing or full',
    matches: (e) => DISK_DOWN_CODES.has(code(e) ?? ''),
    retriable: true,
    errorType: 'RETRY_EXHAUSTED',
  },
  {
    name: 'file I/O error',
    matches: (e) => FILE_IO_CODES.has(code(e) ?? '') || e instanceof TargetLockedError,
    retriable: true,
    errorType: 'RETRY_EXHAUSTED',
  },
];

/** Rules that mean the target as a whole is down, not that the record is bad: the consumer waits (outage budget). */
const OUTAGE_RULES = new Set([
  'connection refused',
  'transient data-access error',
  'failed to open a transaction',
  'wrapped transaction error',
  'transient delivery failure',
  'disk failing or full',
]);

export function isOutage(classification: Classification): boolean {
  return classification.retriable && OUTAGE_RULES.has(classification.rule);
}

/** The error and its causes, outermost first (bounded, cycles cut). */
export function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (
    current !== undefined &&
    current !== null &&
    chain.length < 20 &&
    !chain.includes(current)
  ) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

export function classify(
  error: unknown,
  rules: ClassificationRule[] = DEFAULT_RULES,
): Classification {
  const chain = causeChain(error);
  for (const rule of rules) {
    if (chain.some((link) => rule.matches(link))) {
      return { retriable: rule.retriable, errorType: rule.errorType, rule: rule.name };
    }
  }
  return { retriable: false, errorType: 'UNCLASSIFIED_FAILURE', rule: 'unrecognized' };
}

/** "outer: inner: innermost" — the whole chain in one line for the dead letter. */
export function describeChain(error: unknown): string {
  return causeChain(error)
    .map((link) => message(link))
    .filter((text, index, all) => text && all.indexOf(text) === index)
    .join(' <- ')
    .slice(0, 2000);
}
