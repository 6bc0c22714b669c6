/**
 * Coded errors: each package declares its registry once with `defineErrors`, handlers
 * throw `errors.CODE()`, and the shared HTTP error handler answers `{"detail": ...}`
 * with the registered status. Anything that is not an `AppError` becomes a bare 500.
 */
export interface ErrorDefinition {
  status: number;
  /** Client-facing text, exactly as a spec gives it. */
  detail: string;
}

export interface ErrorOptions {
  /** Replaces the registered detail (e.g. to name the offending field). */
  detail?: string;
  cause?: unknown;
  /** Extra response headers, e.g. `Retry-After`. */
  headers?: Record<string, string>;
  /** Structured extras returned beside `detail` (e.g. field-level `errors`). */
  body?: Record<string, unknown>;
}

export class AppError extends Error {
  readonly detail: string;
  readonly headers: Record<string, string>;
  readonly body: Record<string, unknown>;

  constructor(
    readonly code: string,
    readonly statusCode: number,
    detail: string,
    options: ErrorOptions = {},
  ) {
    super(`${code}: ${detail}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.detail = detail;
    this.headers = options.headers ?? {};
    this.body = options.body ?? {};
  }
}

export type ErrorRegistry<T extends Record<string, ErrorDefinition>> = {
  readonly [K in keyof T]: (options?: ErrorOptions) => AppError;
} & { readonly definitions: Readonly<T> };

export function defineErrors<const T extends Record<string, ErrorDefinition>>(
  definitions: T,
): ErrorRegistry<T> {
  const registry: Record<string, unknown> = { definitions: Object.freeze({ ...definitions }) };
  for (const [code, { status, detail }] of Object.entries(definitions)) {
    registry[code] = (options: ErrorOptions = {}) =>
      new AppError(code, status, options.detail ?? detail, options);
  }
  return Object.freeze(registry) as ErrorRegistry<T>;
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
