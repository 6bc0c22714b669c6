/**
 * Environment configuration: parsed and validated once at start-up, then passed down
 * frozen. A wrong value stops the process with one line naming the variable and what
 * it expects (see `loadConfigOrExit`).
 */
import type { z } from 'zod';

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    readonly expectation: string,
  ) {
    super(`${variable}: ${expectation}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** Variables whose value the error line must not echo (it lands in logs). */
const SECRET_NAME = /SECRET|TOKEN|PASSWORD|API_KEY/i;

/** Parses `env` with `schema`; throws `ConfigError` for the first invalid variable. */
export function loadConfig<S extends z.ZodType>(
  schema: S,
  env: Env = process.env,
): Readonly<z.output<S>> {
  // Empty strings count as unset, as a shell `FOO= npm start` means.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const result = schema.safeParse(cleaned);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const variable = String(issue.path[0] ?? '(environment)');
    const got = cleaned[variable];
    const shown =
      got === undefined
        ? 'it is not set'
        : SECRET_NAME.test(variable)
          ? `got ${got.length} characters, not shown`
          : `got ${JSON.stringify(got)}`;
    throw new ConfigError(variable, `${issue.message} (${shown})`);
  }
  return Object.freeze(result.data);
}

/** `loadConfig`, but a bad value ends the process with exit code 78 and one line on stderr. */
export function loadConfigOrExit<S extends z.ZodType>(
  schema: S,
  env: Env = process.env,
): Readonly<z.output<S>> {
  try {
    return loadConfig(schema, env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
}
