/** Zod building blocks for environment variables, each with the message a user sees. */
import { z } from 'zod';

/** A TCP port; 0 asks the system for a free one (tests, side-by-side instances). */
export const portVar = (defaultPort: number) =>
  z.coerce
    .number({ message: 'expected a port number' })
    .int({ message: 'expected an integer port between 0 and 65535' })
    .min(0, { message: 'expected an integer port between 0 and 65535' })
    .max(65535, { message: 'expected an integer port between 0 and 65535' })
    .default(defaultPort);

export const positiveIntVar = (defaultValue: number) =>
  z.coerce
    .number({ message: 'expected a positive integer' })
    .int({ message: 'expected a positive integer' })
    .positive({ message: 'expected a positive integer' })
    .default(defaultValue);

/** A count where 0 means "off" (e.g. a cache size or a retry count). */
export const nonNegativeIntVar = (defaultValue: number) =>
  z.coerce
    .number({ message: 'expected a whole number (0 or more)' })
    .int({ message: 'expected a whole number (0 or more)' })
    .min(0, { message: 'expected a whole number (0 or more)' })
    .default(defaultValue);

export const booleanVar = (defaultValue: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'expected true or false' })
    .transform((value) => value === 'true' || value === '1' || value === 'yes')
    .default(defaultValue);

export const urlVar = (protocols: string[]) =>
  z.string().refine(
    (value) => {
      try {
        return protocols.includes(new URL(value).protocol.replace(/:$/, ''));
      } catch {
        return false;
      }
    },
    { message: `expected a URL (${protocols.map((p) => `${p}://…`).join(' or ')})` },
  );

/** Comma-separated list; empty entries dropped. */
export const listVar = () =>
  z.string().transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  );
